import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/analytics';
import type { Config } from '@crawler/domain/config';
import { qualityLimitsFrom } from '@crawler/domain/quality';
import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import { objectStoreFromSettings, type ObjectStore } from '@crawler/adapters/storage';
import { LoginThrottle, loginLimitsFrom } from '../auth/login-throttle';
import { scryptParams } from '../auth/password';
import type { Store } from '../db/store';
import type { RecrawlStore } from '../recrawl/recrawl-store';

/** What every API procedure can use: built once at start-up. */
export interface Services {
  config: Config;
  log: Logger;
  redis: RedisClient;
  frontier: Frontier;
  analytics: AnalyticsStore;
  /** Postgres: seeds, host policies, users, tokens, sessions, audit log. */
  store: Store;
  agentsKey: string;
  /** The re-crawl schedule (URL → next visit, with what its last capture left). */
  recrawl: RecrawlStore;
}

/** What the host services need. */
export function hostDeps(s: Services) {
  return {
    store: s.store,
    policies: s.store.policies,
    frontier: s.frontier,
    redis: s.redis,
    prefix: s.config.REDIS_PREFIX,
    defaultGapMs: s.frontier.defaults.defaultGapMs,
    defaultDailyBudget: s.config.HOST_DAILY_BUDGET,
  };
}

const loginThrottles = new WeakMap<Services, LoginThrottle>();

/** What login and logout need. */
export function sessionDeps(s: Services) {
  let throttle = loginThrottles.get(s);
  if (!throttle) {
    throttle = new LoginThrottle(s.redis, s.config.REDIS_PREFIX, loginLimitsFrom(s.config));
    loginThrottles.set(s, throttle);
  }
  return {
    store: s.store,
    sessionTtlMs: s.config.SESSION_TTL_MS,
    cookieSecure: s.config.COOKIE_SECURE,
    throttle,
    passwordParams: scryptParams(s.config.PASSWORD_SCRYPT_LOG2_N),
    hashQueueMax: s.config.LOGIN_HASH_QUEUE_MAX,
    ipv6PrefixBits: s.config.LOGIN_IPV6_PREFIX,
  };
}

/** What creating and changing accounts needs (new passwords are hashed at the configured cost). */
export function accountDeps(s: Services) {
  return { store: s.store, passwordParams: scryptParams(s.config.PASSWORD_SCRYPT_LOG2_N) };
}

/** What the stats need. */
export function statsDeps(s: Services) {
  return { ...s, seeds: s.store.seeds };
}

/** What the URL inspector needs. */
export function inspectDeps(s: Services) {
  return {
    analytics: s.analytics,
    frontier: s.frontier,
    redis: s.redis,
    qualityLimits: qualityLimitsFrom(s.config),
    policies: s.store.policies,
    recrawl: s.recrawl,
    defaultDailyBudget: s.config.HOST_DAILY_BUDGET,
  };
}

const warcStores = new WeakMap<Services, ObjectStore>();

/** The object store holding WARC files (DATA_DIR/warc, or S3 when configured), made once. */
export function warcStoreOf(s: Services): ObjectStore {
  let store = warcStores.get(s);
  if (!store) {
    store = objectStoreFromSettings({ ...s.config, dataDir: s.config.DATA_DIR });
    warcStores.set(s, store);
  }
  return store;
}
