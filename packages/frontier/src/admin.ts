import { ConfigError } from '@crawler/domain/config';
import { z } from 'zod';
import { allShards, type FrontierResources } from './resources';
import { seenFalsePositiveRate } from './seen-layers';
import { readSeenLayers } from './seen-set';
import type { FrontierStats } from './types';

const statsReply = z.array(z.coerce.number()).length(11);

/**
 * Running the frontier: its layout check, shard moves between Redis nodes (freeze/thaw), and
 * what operators read of it (counters summed over shards by shardStats-5.lua, spent budgets,
 * one host's state).
 */
export class FrontierAdmin {
  constructor(private readonly r: FrontierResources) {}

  /**
   * Records the installation's layout (shards, seen set) on first use and refuses to run with a
   * different one: changing it would silently break dedupe and host ownership.
   */
  async checkLayout(): Promise<void> {
    const { keys, seen } = this.r;
    const key = keys.layout();
    const layout = `shards=${this.r.shards};seen=${seen.mode};m=${seen.bloomBits};k=${seen.bloomHashes}`;
    await this.r.redis.setnx(key, layout);
    const stored = await this.r.redis.get(key);
    if (stored !== layout) {
      throw new ConfigError([
        `frontier layout mismatch under prefix "${keys.prefix}": stored ${stored ?? '?'}, configured ${layout}. FRONTIER_SHARDS and the seen-set settings are fixed per installation.`,
      ]);
    }
  }

  /**
   * Writes the limits the scripts read from each shard's stats: `dead_cap`, the shard's share of
   * `deadLetterMaxBytes` (includes/dead-letter.lua). Every process opening the frontier writes
   * them; set the same value everywhere.
   */
  async applyLimits(): Promise<void> {
    const cap = Math.max(1, Math.floor(this.r.config.deadLetterMaxBytes / this.r.shards));
    // One call per shard (shards live in different cluster slots); ioredis pipelines them.
    await Promise.all(
      Array.from({ length: this.r.shards }, (_, s) =>
        this.r.redis.hset(this.r.keys.stats(s), 'dead_cap', cap),
      ),
    );
  }

  /**
   * Stops a shard's scripts while its Redis Cluster slot moves to another node: leases skip the
   * shard, complete/fail/extend/enqueue/policy calls fail with SHARDMOVING (retry them), stats
   * reclaim nothing. The move: freezeShard → SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE →
   * thawShard. Leases stay current meanwhile (nothing reclaims them).
   */
  async freezeShard(shard: number): Promise<void> {
    await this.r.redis.hset(this.r.keys.stats(shard), 'moving', '1');
  }

  /** Lets a moved shard's scripts run again (on its new node). */
  async thawShard(shard: number): Promise<void> {
    await this.r.redis.hdel(this.r.keys.stats(shard), 'moving');
  }

  /** Counters summed over all shards (also reclaims expired leases). */
  async stats(): Promise<FrontierStats> {
    const { keys: k, seen } = this.r;
    const replies = await Promise.all(
      allShards(this.r).map((s) =>
        this.r.cmd.shardStats(
          k.ready(s),
          k.leases(s),
          k.stats(s),
          k.seen(s),
          k.dead(s),
          k.shard(s),
          seen.mode,
        ),
      ),
    );
    const t: FrontierStats = {
      shards: this.r.shards,
      hosts: 0,
      queuedUrls: 0,
      spilledUrls: 0,
      seenUrls: 0,
      seenBytes: 0,
      seenFalsePositiveRate: 0,
      readyHosts: 0,
      scheduledHosts: 0,
      openLeases: 0,
      deadLetters: 0,
      processedUrls: 0,
    };
    // Bloom: each shard's expected rate over its layers (a shard no add has described yet: layer
    // 0 holding the URLs accepted).
    const fpRates =
      seen.mode === 'bloom'
        ? await Promise.all(
            replies.map(async (r, s) =>
              seenFalsePositiveRate(await readSeenLayers(this.r, s, statsReply.parse(r)[2])),
            ),
          )
        : [];
    for (const [s, r] of replies.entries()) {
      const v = statsReply.parse(r);
      t.hosts += v[0]!;
      t.queuedUrls += v[1]! + v[10]!;
      t.spilledUrls += v[10]!;
      t.seenUrls += v[2]!;
      t.readyHosts += v[3]!;
      t.scheduledHosts += v[4]!;
      t.openLeases += v[5]!;
      t.deadLetters += v[6]!;
      t.processedUrls += v[7]!;
      t.seenBytes += v[8]!;
      t.seenFalsePositiveRate += (fpRates[s] ?? 0) / this.r.shards;
    }
    return t;
  }

  /**
   * True when nothing is queued for a leasable host, nothing is spilled (a spilled URL comes back
   * to its head, or becomes a dead letter) and no lease is open.
   */
  async isIdle(): Promise<boolean> {
    const s = await this.stats();
    return s.scheduledHosts === 0 && s.openLeases === 0 && s.spilledUrls === 0;
  }

  /**
   * Hosts whose daily page budget is spent, waiting in the ready set for the next UTC day (where
   * the lease script puts them), and the URLs queued on them.
   */
  async budgetSpent(): Promise<{ hosts: number; urls: number }> {
    const { redis, keys } = this.r;
    const [sec] = await redis.time();
    const tomorrow = (Math.floor(Number(sec) / 86_400) + 1) * 86_400_000;
    const perShard = await Promise.all(
      allShards(this.r).map(async (s) => {
        const hosts = await this.readyHosts(s, tomorrow, tomorrow);
        const queued = await Promise.all(hosts.map((h) => redis.hmget(keys.host(s, h), 'n', 'sp')));
        const urls = queued.reduce((a, [n, sp]) => a + Number(n ?? 0) + Number(sp ?? 0), 0);
        return { hosts: hosts.length, urls };
      }),
    );
    return perShard.reduce((a, b) => ({ hosts: a.hosts + b.hosts, urls: a.urls + b.urls }), {
      hosts: 0,
      urls: 0,
    });
  }

  /**
   * The shard's ready hosts whose next allowed time (ms) is in [minScore, maxScore], from its class
   * sets and what an earlier release left in the legacy ready set (each host once). Read without
   * a transaction: a host changing class meanwhile may be missed.
   */
  async readyHosts(
    shard: number,
    maxScore: number | '+inf' = '+inf',
    minScore: number | '-inf' = '-inf',
  ): Promise<string[]> {
    const { redis, keys } = this.r;
    const sets = await Promise.all(
      [...keys.readyClasses(shard), keys.ready(shard)].map((key) =>
        redis.zrangebyscore(key, minScore, maxScore),
      ),
    );
    return [...new Set(sets.flat())];
  }

  /**
   * How many of the shard's hosts are ready with a next allowed time (ms) at or before `maxScore`
   * (`Date.now()`: the due ones), summed over its class sets and the legacy ready set (a host an
   * earlier release left in both counts twice until the next lease or stats call moves it).
   */
  async readyCount(shard: number, maxScore: number | '+inf' = '+inf'): Promise<number> {
    const { redis, keys } = this.r;
    const counts = await Promise.all(
      [...keys.readyClasses(shard), keys.ready(shard)].map((key) =>
        redis.zcount(key, '-inf', maxScore),
      ),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Reads a host's frontier state (for the API and tests); `queued` counts its spilled URLs. */
  async hostState(host: string): Promise<{ queued: number; fields: Record<string, string> }> {
    const fields = await this.r.redis.hgetall(this.r.keys.host(this.r.shardOf(host), host));
    return { queued: Number(fields.n ?? 0) + Number(fields.sp ?? 0), fields };
  }
}
