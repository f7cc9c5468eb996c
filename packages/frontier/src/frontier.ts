import { z } from 'zod';
import type { RedisClient } from '@crawler/shared/redis';
import { FrontierKeys, shardOf } from './keys';
import { defineFrontierScripts, type FrontierCommands } from './scripts';
import {
  queueEntrySchema,
  type EnqueueUrl,
  type FrontierStats,
  type HostLease,
  type LeaseOutcome,
  type QueueEntry,
} from './types';

export interface FrontierOptions {
  /** Key prefix of the installation (REDIS_PREFIX). */
  prefix: string;
  /** Logical shards, fixed per installation. */
  shards: number;
  /** Lease length in ms (default 5 minutes). */
  leaseMs?: number;
  /** URLs per lease at most (default 50). */
  maxUrlsPerLease?: number;
  /** Default gap between two requests to one host, in ms (default 1,000). */
  defaultGapMs?: number;
}

const leaseReply = z.array(
  z.tuple([z.string(), z.string(), z.coerce.number(), z.coerce.number(), z.array(z.string())]),
);
const statsReply = z.array(z.coerce.number()).length(8);

/** Raised when Redis hands back something the frontier did not write. */
export class FrontierDataError extends Error {
  readonly code = 'FRONTIER_BAD_DATA';
}

/**
 * Client of the Redis frontier: per-host queues in logical shards, host-batch leases fenced by
 * lease id, one Lua script per state transition (packages/frontier/src/commands).
 */
export class Frontier {
  readonly keys: FrontierKeys;
  readonly shards: number;
  private readonly cmd: FrontierCommands;
  private readonly leaseMs: number;
  private readonly maxUrls: number;
  private readonly defaultGapMs: number;
  private leaseCursor = 0;

  constructor(
    private readonly redis: RedisClient,
    opts: FrontierOptions,
  ) {
    this.keys = new FrontierKeys(opts.prefix);
    this.shards = opts.shards;
    this.leaseMs = opts.leaseMs ?? 300_000;
    this.maxUrls = opts.maxUrlsPerLease ?? 50;
    this.defaultGapMs = opts.defaultGapMs ?? 1000;
    this.cmd = defineFrontierScripts(redis);
  }

  shardOf(host: string): number {
    return shardOf(host, this.shards);
  }

  /** Adds URLs not seen before to their hosts' queues. Returns how many were new. */
  async enqueue(urls: readonly EnqueueUrl[]): Promise<{ accepted: number }> {
    const byShard = new Map<number, (string | number)[]>();
    for (const u of urls) {
      const shard = this.shardOf(u.host);
      let args = byShard.get(shard);
      if (!args) byShard.set(shard, (args = []));
      const entry: QueueEntry = {
        u: u.url,
        f: u.urlFp,
        d: u.depth,
        r: u.redirects ?? 0,
        p: u.priority ?? 1,
        s: u.source ?? 'link',
      };
      args.push(u.urlFp, u.host, JSON.stringify(entry));
    }
    const counts = await Promise.all(
      [...byShard].map(([shard, args]) => {
        const k = this.keys;
        return this.cmd.enqueueUrls(
          k.ready(shard),
          k.seen(shard),
          k.stats(shard),
          k.dead(shard),
          k.shard(shard),
          ...args,
        );
      }),
    );
    return { accepted: counts.reduce<number>((a, c) => a + Number(c), 0) };
  }

  /**
   * Leases up to `maxHosts` ready hosts across shards. Shards are asked in waves, starting at a
   * rotating shard so agents spread over the keyspace; each wave asks as many shards as hosts
   * are still needed, so hardly any host is leased beyond `maxHosts` (any extra is handed back).
   * Each host comes with a batch of URLs.
   */
  async lease(agentId: string, maxHosts: number): Promise<HostLease[]> {
    const leases: HostLease[] = [];
    let visited = 0;
    while (leases.length < maxHosts && visited < this.shards) {
      const need = maxHosts - leases.length;
      const wave = Math.min(this.shards - visited, need);
      const perShard = Math.ceil(need / wave);
      const shards = Array.from({ length: wave }, (_, i) => (this.leaseCursor + i) % this.shards);
      this.leaseCursor = (this.leaseCursor + wave) % this.shards;
      visited += wave;
      const replies = await Promise.all(
        shards.map((shard) => this.leaseShard(shard, agentId, perShard)),
      );
      for (const r of replies) leases.push(...r);
    }
    const extra = leases.splice(maxHosts);
    await Promise.all(
      extra.map((l) => this.complete(l, { processed: 0, delayMs: 0, paceMs: l.gapMs })),
    );
    return leases;
  }

  private async leaseShard(shard: number, agentId: string, max: number): Promise<HostLease[]> {
    const k = this.keys;
    const reply = await this.cmd.leaseHosts(
      k.ready(shard),
      k.leases(shard),
      k.stats(shard),
      k.shard(shard),
      agentId,
      max,
      this.leaseMs,
      this.maxUrls,
      this.defaultGapMs,
      shard,
    );
    const parsed = leaseReply.safeParse(reply);
    if (!parsed.success)
      throw new FrontierDataError(`lease reply of shard ${shard}: ${parsed.error.message}`);
    return parsed.data.map(([leaseId, host, leaseMs, gapMs, entries]) => ({
      leaseId,
      shard,
      host,
      leaseMs,
      gapMs,
      urls: entries.map(parseEntry),
    }));
  }

  /** Ends a lease. Returns false when the lease was no longer current (expired and reclaimed). */
  async complete(
    lease: Pick<HostLease, 'leaseId' | 'shard'>,
    outcome: LeaseOutcome,
  ): Promise<boolean> {
    const k = this.keys;
    const s = lease.shard;
    const r = await this.cmd.completeLease(
      k.ready(s),
      k.leases(s),
      k.stats(s),
      k.dead(s),
      k.shard(s),
      lease.leaseId,
      outcome.processed,
      Math.max(0, Math.round(outcome.delayMs)),
      Math.max(1, Math.round(outcome.paceMs)),
      outcome.parkReason ? '1' : '0',
      outcome.parkReason ?? '',
    );
    return Number(r) >= 0;
  }

  /** Writes a host's policy (gap in ms or null for the default; blocked) into its shard. */
  async setHostPolicy(
    host: string,
    policy: { gapMs: number | null; blocked: boolean },
  ): Promise<void> {
    const s = this.shardOf(host);
    const k = this.keys;
    await this.cmd.setHostPolicy(
      k.ready(s),
      k.stats(s),
      k.leases(s),
      k.shard(s),
      host,
      policy.gapMs === null ? '' : String(Math.round(policy.gapMs)),
      policy.blocked ? '1' : '0',
    );
  }

  /** Counters summed over all shards (also reclaims expired leases). */
  async stats(): Promise<FrontierStats> {
    const replies = await Promise.all(
      Array.from({ length: this.shards }, (_, s) => {
        const k = this.keys;
        return this.cmd.shardStats(
          k.ready(s),
          k.leases(s),
          k.stats(s),
          k.seen(s),
          k.shard(s),
          'set',
        );
      }),
    );
    const t: FrontierStats = {
      shards: this.shards,
      hosts: 0,
      queuedUrls: 0,
      seenUrls: 0,
      readyHosts: 0,
      scheduledHosts: 0,
      openLeases: 0,
      deadLetters: 0,
      processedUrls: 0,
    };
    for (const r of replies) {
      const [hosts, queued, seen, readyNow, readyTotal, leases, dead, processed] = statsReply.parse(
        r,
      ) as [number, number, number, number, number, number, number, number];
      t.hosts += hosts;
      t.queuedUrls += queued;
      t.seenUrls += seen;
      t.readyHosts += readyNow;
      t.scheduledHosts += readyTotal;
      t.openLeases += leases;
      t.deadLetters += dead;
      t.processedUrls += processed;
    }
    return t;
  }

  /** True when nothing is queued for a leasable host and no lease is open. */
  async isIdle(): Promise<boolean> {
    const s = await this.stats();
    return s.scheduledHosts === 0 && s.openLeases === 0;
  }

  /** Reads a host's frontier state (for the API and tests). */
  async hostState(host: string): Promise<{ queued: number; fields: Record<string, string> }> {
    const s = this.shardOf(host);
    const [fields, queued] = await Promise.all([
      this.redis.hgetall(this.keys.host(s, host)),
      this.redis.llen(this.keys.queue(s, host)),
    ]);
    return { queued, fields };
  }

  /** Lists dead letters of every shard (at most `limit`). */
  async deadLetters(
    limit = 100,
  ): Promise<Array<{ host: string; reason: string; url: string; at: number }>> {
    const out: Array<{ host: string; reason: string; url: string; at: number }> = [];
    for (let s = 0; s < this.shards && out.length < limit; s++) {
      const rows = await this.redis.lrange(this.keys.dead(s), 0, limit - out.length - 1);
      for (const row of rows) {
        const d = deadLetterSchema.parse(JSON.parse(row));
        out.push({ host: d.h, reason: d.r, url: parseEntry(d.e).url, at: d.t });
      }
    }
    return out;
  }
}

const deadLetterSchema = z.object({ h: z.string(), r: z.string(), e: z.string(), t: z.number() });

function parseEntry(raw: string): HostLease['urls'][number] {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new FrontierDataError(`queue entry is not JSON: ${raw.slice(0, 80)}`);
  }
  const e = queueEntrySchema.safeParse(json);
  if (!e.success) throw new FrontierDataError(`queue entry invalid: ${e.error.message}`);
  return { url: e.data.u, urlFp: e.data.f, depth: e.data.d, redirects: e.data.r, source: e.data.s };
}
