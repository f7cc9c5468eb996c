import type { Config } from '@crawler/domain/config';
import type { RedisClient } from '@crawler/adapters/redis';
import { Frontier, type FrontierOptions } from './frontier';

/** The frontier's options from the validated configuration (one place for every process). */
export function frontierOptions(c: Config): FrontierOptions {
  return {
    prefix: c.REDIS_PREFIX,
    shards: c.FRONTIER_SHARDS,
    leaseMs: c.LEASE_MS,
    leaseTtlMs: c.LEASE_TTL_MS,
    maxUrlsPerLease: c.LEASE_MAX_URLS,
    defaultGapMs: c.CRAWLER_DEFAULT_GAP_MS,
    seen: {
      mode: c.FRONTIER_SEEN,
      expectedUrls: c.FRONTIER_EXPECTED_URLS,
      bitsPerUrl: c.FRONTIER_BLOOM_BITS_PER_URL,
      hashes: c.FRONTIER_BLOOM_HASHES,
      ...(c.FRONTIER_SEEN_FP_TARGET === undefined ? {} : { fpTarget: c.FRONTIER_SEEN_FP_TARGET }),
      confirmMax: Math.ceil(c.FRONTIER_SEEN_CONFIRM_MAX / c.FRONTIER_SHARDS),
    },
    tierWeights: c.FRONTIER_TIER_WEIGHTS,
    recrawlShare: c.FRONTIER_RECRAWL_SHARE,
    maxAttempts: c.FRONTIER_MAX_ATTEMPTS,
    backoffBaseMs: c.FRONTIER_BACKOFF_BASE_MS,
    backoffMaxMs: c.FRONTIER_BACKOFF_MAX_MS,
    dailyBudget: c.HOST_DAILY_BUDGET,
    ipGapMs: c.FRONTIER_IP_GAP_MS,
    headMax: c.FRONTIER_HEAD_MAX,
    deadLetterMaxBytes: c.FRONTIER_DEAD_LETTER_MAX_BYTES,
  };
}

/** A frontier client for this installation, its layout checked against Redis. */
export async function openFrontier(c: Config, redis: RedisClient): Promise<Frontier> {
  const f = new Frontier(redis, frontierOptions(c));
  await f.checkLayout();
  await f.admin.applyLimits();
  return f;
}
