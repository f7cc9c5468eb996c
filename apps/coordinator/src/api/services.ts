import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/shared/analytics';
import type { Config } from '@crawler/shared/config';
import type { Logger } from '@crawler/shared/log';
import type { RedisClient } from '@crawler/shared/redis';
import type { HostPolicyRepository } from '../db/host-policy-repository';
import type { SeedRepository } from '../db/seed-repository';

/** What every API procedure can use: built once at start-up. */
export interface Services {
  config: Config;
  log: Logger;
  redis: RedisClient;
  frontier: Frontier;
  analytics: AnalyticsStore;
  seeds: SeedRepository;
  policies: HostPolicyRepository;
  agentsKey: string;
}
