import type { RedisClient } from '@crawler/adapters/redis';
import { FrontierKeys, shardOf } from './keys';
import { checkTierWeights, DEFAULT_TIER_WEIGHTS } from './priority';
import { defineFrontierScripts, type FrontierCommands } from './scripts';
import { seenLayout, type SeenLayout, type SeenOptions } from './seen-layers';

export interface FrontierOptions {
  /** Key prefix of the installation (REDIS_PREFIX). */
  prefix: string;
  /** Logical shards, fixed per installation. */
  shards: number;
  /** Longest an agent may work one lease, in ms (default 5 minutes): sizes its batch. */
  leaseMs?: number;
  /**
   * How long a lease lives unless its agent renews it (`renew`), in ms (default: leaseMs, no
   * renewal needed). Short (LEASE_TTL_MS, 15 s) in the crawl: a dead agent's hosts come back
   * within it.
   */
  leaseTtlMs?: number;
  /** URLs per lease at most (default 50). */
  maxUrlsPerLease?: number;
  /** Default gap between two requests to one host, in ms (default 1,000). */
  defaultGapMs?: number;
  /**
   * The seen set: per shard a scalable Bloom filter whose layer 0 is sized for `expectedUrls` in
   * all (default 10M) at `bitsPerUrl` (10) with `hashes` (7), layers added as it fills so the
   * false-positive rate stays under `fpTarget` — or an exact set (seen-layers.ts).
   */
  seen?: SeenOptions;
  /**
   * Weights of priority tiers 0–9 in a host's batches: ten whole numbers (default
   * 512,256,…,2,1). Each tier with URLs waiting gets its weight's share of the slots among the
   * waiting tiers'.
   */
  tierWeights?: readonly number[];
  /** Share of a batch reserved for re-crawls when both kinds wait (default 0.6). */
  recrawlShare?: number;
  /** Attempts before a failing URL is dead-lettered (default 3). */
  maxAttempts?: number;
  /** Host backoff after errors: base × 2^(errors-1), capped (defaults 30 s, 1 h). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Pages per host per UTC day unless the host's policy says otherwise (default 50,000; 0 = none). */
  dailyBudget?: number;
  /** Pause between two leases of hosts that share an IP (default 0: only one at a time). */
  ipGapMs?: number;
  /**
   * URLs kept in Redis per host and priority tier (FRONTIER_HEAD_MAX); the rest spill to the
   * overflow list and on to Postgres, and come back as the head runs low (spill.ts). 0 (the
   * default) keeps every URL in Redis. Never under maxUrlsPerLease: a head holds a full batch.
   */
  headMax?: number;
  /**
   * Bytes of dead letters the whole frontier keeps in Redis (FRONTIER_DEAD_LETTER_MAX_BYTES,
   * default 256 MiB), split evenly between shards; past a shard's share a letter is dropped and
   * counted (includes/dead-letter.lua). Written to each shard by `FrontierAdmin.applyLimits`.
   */
  deadLetterMaxBytes?: number;
}

/**
 * The options with their defaults filled in. One object shared by every part: `setDefaults`
 * changes `defaultGapMs` and `recrawlShare` in it, live.
 */
export type FrontierConfig = Required<Omit<FrontierOptions, 'seen'>>;

/**
 * A host tier's head bound and its low-water mark (both 0 when spilling is off). The bound holds
 * at least a full batch; the mark is two batches (or half the head when more, never above the
 * head), so the refill is asked while the head can still serve the next lease in full.
 */
export interface HeadBound {
  max: number;
  low: number;
}

/** The head bound of a configuration (see {@link HeadBound}). */
export function headBound(headMax: number, maxUrlsPerLease: number): HeadBound {
  if (headMax <= 0) return { max: 0, low: 0 };
  const max = Math.max(headMax, maxUrlsPerLease);
  return { max, low: Math.min(max, Math.max(Math.ceil(max / 2), 2 * maxUrlsPerLease)) };
}

export type { SeenLayout } from './seen-layers';

/**
 * What every part of the frontier shares (enqueue, leases, policies, dead letters, admin,
 * re-crawl schedule): one Redis client with the scripts defined on it, one key builder, one
 * host → shard map and one configuration.
 */
export interface FrontierResources {
  readonly redis: RedisClient;
  readonly keys: FrontierKeys;
  readonly shards: number;
  /** The frontier's scripts (commands/*.lua), defined once on `redis`. */
  readonly cmd: FrontierCommands;
  readonly config: FrontierConfig;
  readonly seen: SeenLayout;
  /** Per host tier: URLs kept in Redis, and the low-water mark that asks for a refill. */
  readonly head: HeadBound;
  /** The shard of a host (FNV-1a, stable across processes and releases). */
  readonly shardOf: (host: string) => number;
}

/** Builds the shared resources of a frontier client: defaults filled in, scripts defined. */
export function frontierResources(redis: RedisClient, opts: FrontierOptions): FrontierResources {
  const shards = opts.shards;
  // Checked (tier weights) before any script is defined on the client.
  const config: FrontierConfig = {
    prefix: opts.prefix,
    shards,
    leaseMs: opts.leaseMs ?? 300_000,
    leaseTtlMs: opts.leaseTtlMs ?? opts.leaseMs ?? 300_000,
    maxUrlsPerLease: opts.maxUrlsPerLease ?? 50,
    defaultGapMs: opts.defaultGapMs ?? 1000,
    tierWeights: checkTierWeights(opts.tierWeights ?? DEFAULT_TIER_WEIGHTS),
    recrawlShare: opts.recrawlShare ?? 0.6,
    maxAttempts: opts.maxAttempts ?? 3,
    backoffBaseMs: opts.backoffBaseMs ?? 30_000,
    backoffMaxMs: opts.backoffMaxMs ?? 3_600_000,
    dailyBudget: opts.dailyBudget ?? 50_000,
    ipGapMs: opts.ipGapMs ?? 0,
    headMax: opts.headMax ?? 0,
    deadLetterMaxBytes: opts.deadLetterMaxBytes ?? 256 * 1024 * 1024,
  };
  return {
    redis,
    keys: new FrontierKeys(opts.prefix),
    shards,
    cmd: defineFrontierScripts(redis),
    config,
    seen: seenLayout(opts.seen, shards),
    head: headBound(config.headMax, config.maxUrlsPerLease),
    shardOf: (host) => shardOf(host, shards),
  };
}

/** Every shard number, 0 to shards − 1. */
export function allShards(r: Pick<FrontierResources, 'shards'>): number[] {
  return Array.from({ length: r.shards }, (_, s) => s);
}

/** Indexes of `items` by shard, in order within each shard. */
export function groupByShard(items: ReadonlyArray<{ shard: number }>): Map<number, number[]> {
  const byShard = new Map<number, number[]>();
  items.forEach((it, i) => {
    const list = byShard.get(it.shard);
    if (list) list.push(i);
    else byShard.set(it.shard, [i]);
  });
  return byShard;
}

/** Sums script answers that are counts (Redis integers). */
export function sumCounts(counts: readonly unknown[]): number {
  return counts.reduce<number>((a, c) => a + Number(c), 0);
}
