import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore, FetchStats } from '@crawler/analytics';
import type { RedisClient } from '@crawler/adapters/redis';
import type { SeedRepository } from '../db/seed-repository';
import type { RecrawlStore } from '../recrawl/recrawl-store';
import { isAlive, readHeartbeats } from '../agents/heartbeats';
import { qualityCounters } from '../urls/host-quality-reader';
import { readFetchTotals } from './fetch-totals';
import { readFeedPressure, type FeedConfig } from '../feed/read-feed-pressure';
import type { FeedGroupPressure, FeedOverflow } from '@crawler/adapters/feed';

/** Open leases read per shard to split them by holder (far above agents × AGENT_MAX_HOSTS). */
const MAX_LEASES_READ = 100_000;

/** `fetches.pagesPerSecond` is the attempts of this many seconds before now, per second. */
export const RATE_WINDOW_S = 30;

// Attempts in the recent window, by the coordinator's clock (the agents' clock stamps both
// fetched_at and the heartbeats). `fetches_by_time` is sorted by time: the range is a few
// granules of the day's partition.
const RECENT_SQL = `
SELECT count() AS n FROM fetches_by_time FINAL
WHERE fetched_at > fromUnixTimestamp64Milli({from:Int64})
  AND fetched_at <= fromUnixTimestamp64Milli({to:Int64}) AND NOT robots_denied
SETTINGS do_not_merge_across_partitions_select_final = 1`;

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
  /**
   * Totals over every fetch; `pagesPerSecond` is over the last {@link RATE_WINDOW_S} s only, and
   * 0 while no agent is alive (fetches still being ingested are not a crawl going on).
   */
  fetches: FetchStats;
  seeds: { total: number };
  /**
   * Agents in the heartbeat set: `alive` beat within the last 15 s; `dead` beat before and
   * never said goodbye (a clean stop leaves the set), so their leases stay open until they
   * expire, or an operator releases them (`POST /v1/agents/{id}/release-leases`).
   */
  agents: {
    alive: number;
    dead: number;
    /** Open leases by their holder: an agent alive, or one that is not (dead, or unknown). */
    openLeases: { live: number; dead: number };
  };
  /** Re-crawl freshness: URLs on the schedule, those past due, and their share. */
  recrawl: { scheduled: number; pastDue: number; pastDueShare: number };
  /**
   * URLs kept out by each trap and crawl-quality rule since the frontier began (links dropped
   * at enqueue and queued URLs dropped at lease): `template_exhausted`, `pager_depth`,
   * `facet_explosion`, `noop_param` (rewritten without the parameter), `soft_404`,
   * `duplicate_budget` (leases ended), `too_many_hops`, `too_deep`, `url_too_long`, …, and
   * `blocked_pattern`: URLs an operator's URL block pattern matched, links at enqueue and queued
   * URLs at lease. An agent counts only the URLs of hosts whose lease it holds (their shard is
   * known then): a pattern's drop of a link to another host is not counted, and neither are
   * links to a blocked host (no rule's drop: the lease-time check stops a blocked host's lease
   * instead); the agent's own `blockRefused` counts every one.
   */
  quality: Record<string, number>;
  /**
   * The `pages.parsed` feed: pages it holds and their bytes, those the slowest registered
   * consumer group of each partition has not read (`unreadPages`, `unreadBytes`), the level at
   * which agents stop taking leases (`holdAtBytes`: 90% of FEED_MAX_BYTES) and whether they do
   * now (`leasingHeld`, FEED_OVERFLOW=hold), and each group, the furthest behind first, with the
   * pages it lost (`droppedPages`: trimmed with FEED_OVERFLOW=drop, or unread when unregistered).
   */
  feed: {
    pages: number;
    bytes: number;
    unreadPages: number;
    unreadBytes: number;
    maxBytes: number;
    holdAtBytes: number;
    overflow: FeedOverflow;
    leasingHeld: boolean;
    droppedPages: number;
    groups: FeedGroupPressure[];
  };
  generatedAt: string;
}

/** `GET /v1/stats`: the crawl at a glance, from the frontier, ClickHouse and Postgres. */
export async function getStats(
  deps: {
    frontier: Frontier;
    analytics: AnalyticsStore;
    seeds: SeedRepository;
    redis: RedisClient;
    agentsKey: string;
    recrawl: RecrawlStore;
    config: FeedConfig;
  },
  now = Date.now(),
): Promise<Stats> {
  const [f, fetches, recent, seeds, beats, leases, freshness, quality, feed] = await Promise.all([
    deps.frontier.stats(),
    // fetchStats()'s totals, re-reading only the days whose rows changed (fetch-totals.ts).
    readFetchTotals(deps.analytics),
    deps.analytics.queryJson<{ n: number | string }>(RECENT_SQL, {
      from: now - RATE_WINDOW_S * 1000,
      to: now,
    }),
    deps.seeds.count(),
    readHeartbeats(deps.redis, deps.agentsKey),
    deps.frontier.openLeases(MAX_LEASES_READ),
    deps.recrawl.freshness(),
    qualityCounters(deps.redis, deps.frontier),
    readFeedPressure(deps.redis, deps.config),
  ]);
  const live = new Set([...beats].filter(([, beat]) => isAlive(beat, now)).map(([id]) => id));
  const [alive, dead] = [live.size, beats.size - live.size];
  const leasesLive = leases.filter((l) => live.has(l.agentId)).length;
  const pagesPerSecond = alive > 0 ? Number(recent[0]?.n ?? 0) / RATE_WINDOW_S : 0;
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
    fetches: {
      total: fetches.total,
      ok: fetches.ok,
      errors: fetches.errors,
      robotsDenied: fetches.robotsDenied,
      bytes: fetches.bytes,
      pagesPerSecond,
      statusMix: fetches.statusMix,
    },
    seeds: { total: seeds },
    agents: {
      alive,
      dead,
      openLeases: { live: leasesLive, dead: leases.length - leasesLive },
    },
    recrawl: {
      ...freshness,
      pastDueShare: freshness.scheduled > 0 ? freshness.pastDue / freshness.scheduled : 0,
    },
    quality,
    feed: {
      pages: feed.pages,
      bytes: feed.bytes,
      unreadPages: feed.unreadPages,
      unreadBytes: feed.unreadBytes,
      maxBytes: feed.maxBytes,
      holdAtBytes: feed.holdAtBytes,
      overflow: feed.overflow,
      leasingHeld: feed.hold,
      droppedPages: feed.droppedPages,
      groups: feed.groups,
    },
    generatedAt: new Date().toISOString(),
  };
}
