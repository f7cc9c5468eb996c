import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore, FetchStats } from '@crawler/shared/analytics';
import type { RedisClient } from '@crawler/shared/redis';
import type { SeedRepository } from '../db/seed-repository';
import type { RecrawlStore } from '../recrawl/recrawl-store';
import { qualityCounters } from '../urls/host-quality-reader';

/** Heartbeats newer than this count an agent as alive. */
export const AGENT_ALIVE_MS = 15_000;

export interface Stats {
  frontier: {
    shards: number;
    hosts: number;
    readyHosts: number;
    scheduledHosts: number;
    queuedUrls: number;
    openLeases: number;
    seenUrls: number;
    /** Estimated share of new URLs the Bloom filters would skip as seen (0 in exact mode). */
    seenFalsePositiveRate: number;
    deadLetters: number;
  };
  fetches: FetchStats;
  seeds: { total: number };
  agents: { alive: number };
  /** Re-crawl freshness: URLs on the schedule, those past due, and their share. */
  recrawl: { scheduled: number; pastDue: number; pastDueShare: number };
  /**
   * URLs kept out by each trap and crawl-quality rule since the frontier began (links dropped
   * at enqueue and queued URLs dropped at lease): `template_exhausted`, `pager_depth`,
   * `facet_explosion`, `noop_param` (rewritten without the parameter), `soft_404`,
   * `duplicate_budget` (leases ended), `too_many_hops`, `too_deep`, `url_too_long`, …
   */
  quality: Record<string, number>;
  generatedAt: string;
}

/** `GET /v1/stats`: the crawl at a glance, from the frontier, ClickHouse and Postgres. */
export async function getStats(deps: {
  frontier: Frontier;
  analytics: AnalyticsStore;
  seeds: SeedRepository;
  redis: RedisClient;
  agentsKey: string;
  recrawl: RecrawlStore;
}): Promise<Stats> {
  const [f, fetches, seeds, alive, freshness, quality] = await Promise.all([
    deps.frontier.stats(),
    deps.analytics.fetchStats(),
    deps.seeds.count(),
    deps.redis.zcount(deps.agentsKey, Date.now() - AGENT_ALIVE_MS, '+inf'),
    deps.recrawl.freshness(),
    qualityCounters(deps.redis, deps.frontier),
  ]);
  return {
    frontier: {
      shards: f.shards,
      hosts: f.hosts,
      readyHosts: f.readyHosts,
      scheduledHosts: f.scheduledHosts,
      queuedUrls: f.queuedUrls,
      openLeases: f.openLeases,
      seenUrls: f.seenUrls,
      seenFalsePositiveRate: f.seenFalsePositiveRate,
      deadLetters: f.deadLetters,
    },
    fetches,
    seeds: { total: seeds },
    agents: { alive },
    recrawl: {
      ...freshness,
      pastDueShare: freshness.scheduled > 0 ? freshness.pastDue / freshness.scheduled : 0,
    },
    quality,
    generatedAt: new Date().toISOString(),
  };
}
