import { z } from 'zod';
import { decodeTagged, FrontierDataError } from './queue-entry';
import { allShards, groupByShard, sumCounts, type FrontierResources } from './resources';
import { ScriptReply, waitOutShardMove } from './script-replies';
import type { HostLease, LeaseFailure, LeaseOutcome, OpenLease } from './types';

/**
 * What complete, fail and extend need of a lease. Pass the lease's `ip` (as HostLease has it):
 * it frees or extends the IP's lock across shards.
 */
export type LeaseRef = Pick<HostLease, 'leaseId' | 'shard'> & { ip?: string | null };

const leaseReply = z.array(
  z.tuple([
    z.string(),
    z.string(),
    z.coerce.number(),
    z.coerce.number(),
    z.string(),
    z.array(z.string()),
    z.coerce.number().int().min(1),
  ]),
);
const failReply = z.union([
  z.literal(ScriptReply.STALE_LEASE),
  z.tuple([z.number(), z.number(), z.number()]),
]);
const renewReply = z.array(z.number());
const listLeasesReply = z.array(z.tuple([z.string(), z.string(), z.string(), z.coerce.number()]));

/**
 * Host-batch leases: leased highest priority class first among the hosts due, fenced by lease id
 * (a stale lease changes nothing: {@link ScriptReply.STALE_LEASE}), renewed by their agent's
 * heartbeat, with an IP's hosts leased one at a time across shards (the IP lock).
 */
export class FrontierLeases {
  private leaseCursor = 0;

  constructor(private readonly r: FrontierResources) {}

  /**
   * Leases up to `maxHosts` ready hosts across shards. Shards are asked in waves, starting at a
   * rotating shard so agents spread over the keyspace; each wave asks as many shards as hosts
   * are still needed, so hardly any host is leased beyond `maxHosts` (any extra is handed back).
   */
  async lease(agentId: string, maxHosts: number): Promise<HostLease[]> {
    const shards = this.r.shards;
    const leases: HostLease[] = [];
    let visited = 0;
    // Shards that gave all they were asked for may have more: asked again if room is left.
    let full: number[] = [];
    /** The first shard call that failed: thrown only when no shard granted anything. */
    let failure: Error | undefined;
    const failed = (reason: unknown): void => {
      failure ??= reason instanceof Error ? reason : new Error(String(reason));
    };
    while (leases.length < maxHosts && visited < shards) {
      const need = maxHosts - leases.length;
      const wave = Math.min(shards - visited, need);
      const perShard = Math.ceil(need / wave);
      const asked = Array.from({ length: wave }, (_, i) => (this.leaseCursor + i) % shards);
      this.leaseCursor = (this.leaseCursor + wave) % shards;
      visited += wave;
      // Settled, not all: a shard that fails (e.g. TRYAGAIN while its slot moves) must not drop
      // the leases other shards granted in the same wave; they would sit until they expire.
      const replies = await Promise.allSettled(
        asked.map((shard) => this.leaseShard(shard, agentId, perShard)),
      );
      replies.forEach((r, i) => {
        if (r.status === 'rejected') return failed(r.reason);
        leases.push(...r.value);
        if (r.value.length === perShard) full.push(asked[i]!);
      });
    }
    for (let round = 0; round < 3 && leases.length < maxHosts && full.length > 0; round++) {
      const perShard = Math.ceil((maxHosts - leases.length) / full.length);
      const replies = await Promise.allSettled(
        full.map((shard) => this.leaseShard(shard, agentId, perShard)),
      );
      const again: number[] = [];
      replies.forEach((r, i) => {
        if (r.status === 'rejected') return failed(r.reason);
        leases.push(...r.value);
        if (r.value.length === perShard) again.push(full[i]!);
      });
      full = again;
    }
    if (leases.length === 0 && failure !== undefined) throw failure;
    const extra = leases.splice(maxHosts);
    // A shard sees the IP state of its own hosts only: each known IP is also locked across
    // shards, and a host whose IP is taken by another shard's host is handed back for now.
    const locked = await Promise.all(leases.map((l) => this.lockIp(l)));
    const busy = leases.filter((_, i) => !locked[i]);
    const ipRetryMs = Math.max(250, this.r.config.ipGapMs);
    await Promise.all([
      ...extra.map((l) => this.complete(l, { processed: 0, delayMs: 0, paceMs: l.gapMs })),
      ...busy.map((l) => this.complete(l, { processed: 0, delayMs: ipRetryMs, paceMs: l.gapMs })),
    ]);
    return leases.filter((_, i) => locked[i]);
  }

  /** Takes the lease's IP, across shards, for the length of the lease. True when it has none. */
  private async lockIp(l: HostLease): Promise<boolean> {
    if (!l.ip) return true;
    const key = this.r.keys.ipLock(l.ip);
    return (await this.r.redis.set(key, l.leaseId, 'PX', l.ttlMs, 'NX')) === 'OK';
  }

  /** Frees the lease's IP (after the IP's pause), if the lease holds it. */
  private async releaseIp(lease: LeaseRef): Promise<void> {
    if (lease.ip)
      await this.r.cmd.releaseIpLock(
        this.r.keys.ipLock(lease.ip),
        lease.leaseId,
        this.r.config.ipGapMs,
      );
  }

  /** Extends the lease's IP lock to `ms` from now; false when the lease does not hold it. */
  private async extendIp(leaseId: string, ip: string, ms: number): Promise<boolean> {
    const held = await this.r.cmd.extendIpLock(this.r.keys.ipLock(ip), leaseId, ms);
    return Number(held) === ScriptReply.IP_LOCK_HELD;
  }

  private async leaseShard(shard: number, agentId: string, max: number): Promise<HostLease[]> {
    const { keys: k, config: o } = this.r;
    const reply = await this.r.cmd.leaseHosts(
      k.ready(shard),
      k.leases(shard),
      k.stats(shard),
      k.shard(shard),
      agentId,
      max,
      o.leaseMs,
      o.maxUrlsPerLease,
      o.defaultGapMs,
      shard,
      o.tierWeights.join(','),
      o.recrawlShare,
      o.dailyBudget,
      Math.max(250, o.ipGapMs),
      o.leaseTtlMs,
      this.r.head.low,
    );
    const parsed = leaseReply.safeParse(reply);
    if (!parsed.success)
      throw new FrontierDataError(`lease reply of shard ${shard}: ${parsed.error.message}`);
    return parsed.data.map(([leaseId, host, leaseMs, gapMs, ip, entries, maxConnections]) => ({
      leaseId,
      shard,
      host,
      leaseMs,
      ttlMs: o.leaseTtlMs,
      gapMs,
      maxConnections,
      ip: ip || null,
      urls: entries.map(decodeTagged),
    }));
  }

  /** The keys of the scripts that end a lease (complete, fail), in their KEYS order. */
  private endKeys(s: number): [string, string, string, string, string] {
    const k = this.r.keys;
    return [k.ready(s), k.leases(s), k.stats(s), k.dead(s), k.shard(s)];
  }

  /** Ends a lease. Returns false when the lease was no longer current (expired and reclaimed). */
  async complete(lease: LeaseRef, outcome: LeaseOutcome): Promise<boolean> {
    const s = lease.shard;
    const r = await waitOutShardMove(() =>
      this.r.cmd.completeLease(
        ...this.endKeys(s),
        lease.leaseId,
        outcome.processed,
        Math.max(0, Math.round(outcome.delayMs)),
        Math.max(1, Math.round(outcome.paceMs)),
        outcome.parkReason ?? '',
        outcome.ip ?? '',
        this.r.config.ipGapMs,
      ),
    );
    await this.releaseIp(lease);
    return Number(r) !== ScriptReply.STALE_LEASE;
  }

  /**
   * Ends a lease at a failed URL: the URLs before it are done, it is retried later (or
   * dead-lettered at the attempt limit), the host backs off. Null when the lease was not current.
   */
  async fail(
    lease: LeaseRef,
    f: LeaseFailure,
  ): Promise<{ returned: number; deadLettered: boolean; delayMs: number } | null> {
    const o = this.r.config;
    const s = lease.shard;
    const r = failReply.parse(
      await waitOutShardMove(() =>
        this.r.cmd.failLease(
          ...this.endKeys(s),
          lease.leaseId,
          f.index,
          f.error,
          Math.max(0, Math.round(f.retryAfterMs ?? 0)),
          o.maxAttempts,
          o.backoffBaseMs,
          o.backoffMaxMs,
          f.ip ?? '',
          o.ipGapMs,
        ),
      ),
    );
    await this.releaseIp(lease);
    if (r === ScriptReply.STALE_LEASE) return null;
    return { returned: r[0], deadLettered: r[1] === 1, delayMs: r[2] };
  }

  /**
   * Extends an open lease to `ms` from now. Returns false when it was no longer current, or when
   * its IP lock was lost (a late extension after the lock expired: another shard's host may hold
   * the IP now), as renew() does: the caller must stop working the lease either way.
   */
  async extend(lease: LeaseRef, ms: number): Promise<boolean> {
    const k = this.r.keys;
    const s = lease.shard;
    const deadline = await waitOutShardMove(() =>
      this.r.cmd.extendLease(k.leases(s), k.stats(s), k.shard(s), lease.leaseId, Math.round(ms)),
    );
    if (Number(deadline) === ScriptReply.STALE_LEASE) return false;
    return lease.ip ? this.extendIp(lease.leaseId, lease.ip, Math.round(ms)) : true;
  }

  /**
   * Renews open leases for another `leaseTtlMs` (an agent's heartbeat for its leases), one
   * script call per shard, and their IP locks. Returns, per lease in order, its new deadline
   * (ms, Redis time); null when it is no longer current (expired, reclaimed, released, or its IP
   * lock lost); undefined when its shard did not answer (moving, unreachable): each shard's
   * answer stands on its own, and no call waits out a shard move.
   */
  async renew(leases: readonly LeaseRef[]): Promise<Array<number | null | undefined>> {
    const out = new Array<number | null | undefined>(leases.length).fill(undefined);
    const k = this.r.keys;
    const ttl = this.r.config.leaseTtlMs;
    await Promise.allSettled(
      [...groupByShard(leases)].map(async ([s, idx]) => {
        const reply = renewReply.parse(
          await this.r.cmd.renewLeases(
            k.leases(s),
            k.stats(s),
            k.shard(s),
            ttl,
            ...idx.map((i) => leases[i]!.leaseId),
          ),
        );
        idx.forEach((i, j) => {
          const deadline = reply[j];
          out[i] = deadline === undefined || deadline === ScriptReply.STALE_LEASE ? null : deadline;
        });
      }),
    );
    await Promise.allSettled(
      leases.map(async (l, i) => {
        if (typeof out[i] !== 'number' || !l.ip) return;
        // Another shard's host may hold the IP now: two hosts of one IP must not be fetched.
        if (!(await this.extendIp(l.leaseId, l.ip, ttl))) out[i] = null;
      }),
    );
    return out;
  }

  /**
   * Records URLs of open leases as done (`index` in the lease's batch), so that a lease
   * reclaimed from a dead agent returns only the rest. Call it once a URL's outputs are written.
   * Returns how many marks were recorded (marks of leases no longer current are ignored).
   */
  async recordProgress(
    marks: ReadonlyArray<{ lease: Pick<HostLease, 'leaseId' | 'shard'>; index: number }>,
  ): Promise<number> {
    const k = this.r.keys;
    const n = await Promise.all(
      [...groupByShard(marks.map((m) => m.lease))].map(([s, idx]) =>
        waitOutShardMove(() =>
          this.r.cmd.leaseProgress(
            k.leases(s),
            k.stats(s),
            k.shard(s),
            ...idx.flatMap((i) => [marks[i]!.lease.leaseId, marks[i]!.index]),
          ),
        ),
      ),
    );
    return sumCounts(n);
  }

  /** Open leases across shards, soonest deadline first within each shard (at most `limit` each). */
  async openLeases(limit = 1000): Promise<OpenLease[]> {
    const k = this.r.keys;
    const perShard = await Promise.all(
      allShards(this.r).map(async (s) =>
        listLeasesReply
          .parse(await this.r.cmd.listLeases(k.leases(s), k.shard(s), limit))
          .map(([leaseId, host, agentId, deadlineMs]) => ({
            leaseId,
            shard: s,
            host,
            agentId,
            deadlineMs,
          })),
      ),
    );
    return perShard.flat().sort((a, b) => a.deadlineMs - b.deadlineMs);
  }

  /**
   * Returns every open lease of one agent to the queues now, as if it had expired (URLs it
   * recorded as done stay done): for an agent known dead. Returns how many leases.
   */
  async releaseLeasesOf(agentId: string): Promise<number> {
    if (agentId === '') return 0;
    const k = this.r.keys;
    const n = await Promise.all(
      allShards(this.r).map((s) =>
        waitOutShardMove(() =>
          this.r.cmd.releaseLeases(k.ready(s), k.leases(s), k.stats(s), k.shard(s), agentId),
        ),
      ),
    );
    return sumCounts(n);
  }

  /** Returns the URLs of every expired lease to their queues. Returns how many leases. */
  async reclaimExpired(): Promise<number> {
    const k = this.r.keys;
    const n = await Promise.all(
      allShards(this.r).map((s) =>
        this.r.cmd.reclaimExpired(k.ready(s), k.leases(s), k.stats(s), k.shard(s), 1000),
      ),
    );
    return sumCounts(n);
  }
}
