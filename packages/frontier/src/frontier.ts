import { z } from 'zod';
import { scanKeys, type RedisClient } from '@crawler/adapters/redis';
import { FrontierKeys, shardOf } from './keys';
import {
  decodeEntry,
  decodeTagged,
  deadLetterSchema,
  encodeEntry,
  FrontierDataError,
} from './queue-entry';
import { defineFrontierScripts, type FrontierCommands } from './scripts';
import {
  checkTierWeights,
  DEFAULT_TIER_WEIGHTS,
  DISCOVERED_HOST_CLASS,
  FrontierInputError,
  inLinkSiteId,
  SITE_ID_LENGTH,
  tierOf,
} from './priority';
import type {
  HostPriority,
  HostPolicyNotice,
  SuffixPolicy,
  DeadLetter,
  EnqueueUrl,
  FrontierStats,
  HostLease,
  LeaseFailure,
  LeaseOutcome,
  OpenLease,
} from './types';

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
   * The seen set: a Bloom filter per shard sized for `expectedUrls` in all (default 10M) at
   * `bitsPerUrl` (10) with `hashes` (7) — under 1% false positives at capacity — or an exact set.
   * Fixed per installation, like the shard count.
   */
  seen?: { mode: 'bloom' | 'set'; expectedUrls?: number; bitsPerUrl?: number; hashes?: number };
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
}

/** How long a call waits out a shard that is moving to another Redis node. */
const SHARD_MOVE_WAIT_MS = 120_000;

/**
 * Runs a frontier script call, waiting while its shard moves to another Redis node (the scripts
 * refuse with the Redis error code SHARDMOVING, Redis with TRYAGAIN — the first word of a Redis
 * error is its code).
 */
async function waitOutShardMove<T>(call: () => Promise<T>): Promise<T> {
  const until = Date.now() + SHARD_MOVE_WAIT_MS;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await call();
    } catch (err) {
      const code = err instanceof Error ? err.message.split(' ', 1)[0] : '';
      // TRYAGAIN: Redis itself, while the declared keys of the moving slot sit on two nodes.
      const moving = code === 'SHARDMOVING' || code === 'TRYAGAIN';
      if (!moving || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/** URLs (or url_fps) per script call at most. */
const SCRIPT_CHUNK = 1000;

/** One host's part of an enqueue: its URLs' quadruples, best seed priority, referring sites. */
interface HostGroup {
  args: string[];
  seed: number | null;
  sites: Set<string>;
}

/**
 * Appends a host's part of an enqueueUrls call: the quadruples with an empty url_fp that tell
 * the script about the host (best seed priority, referring sites), then its URLs'.
 */
function appendHostArgs(out: string[], host: string, g: HostGroup): void {
  if (g.seed !== null) out.push('', host, 'S', String(g.seed));
  for (const site of g.sites) out.push('', host, 'I', site);
  for (const a of g.args) out.push(a);
}

/**
 * What complete, fail and extend need of a lease. Pass the lease's `ip` (as HostLease has it):
 * it frees or extends the IP's lock across shards.
 */
type LeaseRef = Pick<HostLease, 'leaseId' | 'shard'> & { ip?: string | null };

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
const statsReply = z.array(z.coerce.number()).length(10);
const demoteReply = z.tuple([z.number(), z.number()]);
const failReply = z.union([z.literal(-1), z.tuple([z.number(), z.number(), z.number()])]);
const renewReply = z.array(z.number());
const listLeasesReply = z.array(z.tuple([z.string(), z.string(), z.string(), z.coerce.number()]));

/** Indexes of `items` by shard, in order within each shard. */
function groupByShard(items: ReadonlyArray<{ shard: number }>): Map<number, number[]> {
  const byShard = new Map<number, number[]>();
  items.forEach((it, i) => {
    const list = byShard.get(it.shard);
    if (list) list.push(i);
    else byShard.set(it.shard, [i]);
  });
  return byShard;
}

/**
 * Client of the Redis frontier: per-host queues (priority tiers 0–9 and a re-crawl queue) in
 * logical shards, hosts leased highest priority class first among those due, host-batch leases
 * fenced by lease id, one Lua script per state transition
 * (packages/frontier/src/commands). Every method is safe to call from many agents at once.
 */
export class Frontier {
  readonly keys: FrontierKeys;
  readonly shards: number;
  private readonly cmd: FrontierCommands;
  private readonly o: Required<Omit<FrontierOptions, 'seen'>>;
  private readonly seenMode: 'bloom' | 'set';
  /** Bloom bits per shard and hash count. */
  readonly bloomBits: number;
  readonly bloomHashes: number;
  private leaseCursor = 0;

  constructor(
    private readonly redis: RedisClient,
    opts: FrontierOptions,
  ) {
    this.keys = new FrontierKeys(opts.prefix);
    this.shards = opts.shards;
    this.o = {
      prefix: opts.prefix,
      shards: opts.shards,
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
    };
    const seen = opts.seen ?? { mode: 'bloom' };
    this.seenMode = seen.mode;
    this.bloomHashes = seen.hashes ?? 7;
    // Bits per shard, at most a Redis string's 2^32 bits.
    this.bloomBits = Math.min(
      2 ** 32 - 1,
      Math.ceil(((seen.expectedUrls ?? 10_000_000) * (seen.bitsPerUrl ?? 10)) / this.shards),
    );
    this.cmd = defineFrontierScripts(redis);
  }

  shardOf(host: string): number {
    return shardOf(host, this.shards);
  }

  /**
   * Records the installation's layout (shards, seen set) on first use and refuses to run with a
   * different one: changing it would silently break dedupe and host ownership.
   */
  async checkLayout(): Promise<void> {
    const key = `${this.o.prefix}:layout`;
    const layout = `shards=${this.shards};seen=${this.seenMode};m=${this.bloomBits};k=${this.bloomHashes}`;
    await this.redis.setnx(key, layout);
    const stored = await this.redis.get(key);
    if (stored !== layout) {
      throw new Error(
        `frontier layout mismatch under prefix "${this.o.prefix}": stored ${stored ?? '?'}, configured ${layout}. FRONTIER_SHARDS and the seen-set settings are fixed per installation.`,
      );
    }
  }

  /**
   * Stops a shard's scripts while its Redis Cluster slot moves to another node: leases skip the
   * shard, complete/fail/extend/enqueue/policy calls fail with SHARDMOVING (retry them), stats
   * reclaim nothing. The move: freezeShard → SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE →
   * thawShard. Leases stay current meanwhile (nothing reclaims them).
   */
  async freezeShard(shard: number): Promise<void> {
    await this.redis.hset(this.keys.stats(shard), 'moving', '1');
  }

  /** Lets a moved shard's scripts run again (on its new node). */
  async thawShard(shard: number): Promise<void> {
    await this.redis.hdel(this.keys.stats(shard), 'moving');
  }

  /**
   * Adds URLs not seen before (or re-crawls not already waiting). Returns how many were new.
   * Seeds (`source: 'seed'`) set their host's priority class from their priority, and links from
   * another site (`fromHost`) count toward it, even when the URL itself was seen before. Throws
   * FrontierInputError, writing nothing, when a priority is not an integer 0–9.
   */
  async enqueue(urls: readonly EnqueueUrl[]): Promise<{ accepted: number }> {
    // Shard → host → its URLs' quadruples: the script does its per-host work once per group.
    const byShard = new Map<number, Map<string, HostGroup>>();
    for (const u of urls) {
      const shard = this.shardOf(u.host);
      let hosts = byShard.get(shard);
      if (!hosts) byShard.set(shard, (hosts = new Map<string, HostGroup>()));
      let g = hosts.get(u.host);
      if (!g) hosts.set(u.host, (g = { args: [], seed: null, sites: new Set() }));
      const tier = tierOf(u);
      g.args.push(u.urlFp, u.host, tier, encodeEntry(u));
      if (u.source === 'seed') g.seed = Math.min(g.seed ?? Infinity, Number(tier));
      else if ((u.source ?? 'link') === 'link' && u.fromHost) {
        const site = inLinkSiteId(u.fromHost, u.host);
        if (site) g.sites.add(site);
      }
    }
    const k = this.keys;
    // At most SCRIPT_CHUNK URLs per script call: a call's arguments are spread several times on
    // the way to Redis (here, ioredis, its auto-pipeline), and some 10k URLs overflow the stack.
    const calls: Promise<unknown>[] = [];
    for (const [s, hosts] of byShard) {
      const args: string[] = [];
      for (const [host, g] of hosts) appendHostArgs(args, host, g);
      for (let i = 0; i < args.length; i += 4 * SCRIPT_CHUNK) {
        calls.push(
          waitOutShardMove(() =>
            this.cmd.enqueueUrls(
              k.ready(s),
              k.seen(s),
              k.stats(s),
              k.dead(s),
              k.shard(s),
              this.seenMode,
              this.bloomBits,
              this.bloomHashes,
              ...args.slice(i, i + 4 * SCRIPT_CHUNK),
            ),
          ),
        );
      }
    }
    const counts = await Promise.all(calls);
    return { accepted: counts.reduce<number>((a, c) => a + Number(c), 0) };
  }

  /** SeenBatch: whether each url_fp is in its shard's seen set (Bloom: probably). */
  async seenBatch(entries: ReadonlyArray<{ urlFp: string; host: string }>): Promise<boolean[]> {
    const byShard = new Map<number, number[]>();
    entries.forEach((e, i) => {
      const s = this.shardOf(e.host);
      const list = byShard.get(s) ?? [];
      list.push(i);
      byShard.set(s, list);
    });
    const out = new Array<boolean>(entries.length).fill(false);
    const chunks: [number, number[]][] = [];
    for (const [s, idx] of byShard)
      for (let i = 0; i < idx.length; i += SCRIPT_CHUNK)
        chunks.push([s, idx.slice(i, i + SCRIPT_CHUNK)]);
    await Promise.all(
      chunks.map(async ([s, idx]) => {
        const reply = z
          .array(z.number())
          .parse(
            await this.cmd.seenBatch(
              this.keys.seen(s),
              this.seenMode,
              this.bloomBits,
              this.bloomHashes,
              ...idx.map((i) => entries[i]!.urlFp),
            ),
          );
        idx.forEach((i, j) => (out[i] = reply[j] === 1));
      }),
    );
    return out;
  }

  /**
   * Leases up to `maxHosts` ready hosts across shards. Shards are asked in waves, starting at a
   * rotating shard so agents spread over the keyspace; each wave asks as many shards as hosts
   * are still needed, so hardly any host is leased beyond `maxHosts` (any extra is handed back).
   */
  async lease(agentId: string, maxHosts: number): Promise<HostLease[]> {
    const leases: HostLease[] = [];
    let visited = 0;
    // Shards that gave all they were asked for may have more: asked again if room is left.
    let full: number[] = [];
    /** The first shard call that failed: thrown only when no shard granted anything. */
    let failure: Error | undefined;
    const failed = (reason: unknown): void => {
      failure ??= reason instanceof Error ? reason : new Error(String(reason));
    };
    while (leases.length < maxHosts && visited < this.shards) {
      const need = maxHosts - leases.length;
      const wave = Math.min(this.shards - visited, need);
      const perShard = Math.ceil(need / wave);
      const shards = Array.from({ length: wave }, (_, i) => (this.leaseCursor + i) % this.shards);
      this.leaseCursor = (this.leaseCursor + wave) % this.shards;
      visited += wave;
      // Settled, not all: a shard that fails (e.g. TRYAGAIN while its slot moves) must not drop
      // the leases other shards granted in the same wave; they would sit until they expire.
      const replies = await Promise.allSettled(
        shards.map((shard) => this.leaseShard(shard, agentId, perShard)),
      );
      replies.forEach((r, i) => {
        if (r.status === 'rejected') return failed(r.reason);
        leases.push(...r.value);
        if (r.value.length === perShard) full.push(shards[i]!);
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
    const ipRetryMs = Math.max(250, this.o.ipGapMs);
    await Promise.all([
      ...extra.map((l) => this.complete(l, { processed: 0, delayMs: 0, paceMs: l.gapMs })),
      ...busy.map((l) => this.complete(l, { processed: 0, delayMs: ipRetryMs, paceMs: l.gapMs })),
    ]);
    return leases.filter((_, i) => locked[i]);
  }

  /** Takes the lease's IP, across shards, for the length of the lease. True when it has none. */
  private async lockIp(l: HostLease): Promise<boolean> {
    if (!l.ip) return true;
    const key = this.keys.ipLock(l.ip);
    return (await this.redis.set(key, l.leaseId, 'PX', l.ttlMs, 'NX')) === 'OK';
  }

  /** Frees the lease's IP (after the IP's pause), if the lease holds it. */
  private async releaseIp(lease: LeaseRef): Promise<void> {
    if (lease.ip)
      await this.cmd.releaseIpLock(this.keys.ipLock(lease.ip), lease.leaseId, this.o.ipGapMs);
  }

  private async leaseShard(shard: number, agentId: string, max: number): Promise<HostLease[]> {
    const k = this.keys;
    const o = this.o;
    const reply = await this.cmd.leaseHosts(
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

  /** Ends a lease. Returns false when the lease was no longer current (expired and reclaimed). */
  async complete(lease: LeaseRef, outcome: LeaseOutcome): Promise<boolean> {
    const k = this.keys;
    const s = lease.shard;
    const r = await waitOutShardMove(() =>
      this.cmd.completeLease(
        k.ready(s),
        k.leases(s),
        k.stats(s),
        k.dead(s),
        k.shard(s),
        lease.leaseId,
        outcome.processed,
        Math.max(0, Math.round(outcome.delayMs)),
        Math.max(1, Math.round(outcome.paceMs)),
        outcome.parkReason ?? '',
        outcome.ip ?? '',
        this.o.ipGapMs,
      ),
    );
    await this.releaseIp(lease);
    return Number(r) >= 0;
  }

  /**
   * Ends a lease at a failed URL: the URLs before it are done, it is retried later (or
   * dead-lettered at the attempt limit), the host backs off. Null when the lease was not current.
   */
  async fail(
    lease: LeaseRef,
    f: LeaseFailure,
  ): Promise<{ returned: number; deadLettered: boolean; delayMs: number } | null> {
    const k = this.keys;
    const s = lease.shard;
    const o = this.o;
    const r = failReply.parse(
      await waitOutShardMove(() =>
        this.cmd.failLease(
          k.ready(s),
          k.leases(s),
          k.stats(s),
          k.dead(s),
          k.shard(s),
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
    if (r === -1) return null;
    return { returned: r[0], deadLettered: r[1] === 1, delayMs: r[2] };
  }

  /** Extends an open lease to `ms` from now. Returns false when it was no longer current. */
  async extend(lease: LeaseRef, ms: number): Promise<boolean> {
    const s = lease.shard;
    const ok =
      Number(
        await waitOutShardMove(() =>
          this.cmd.extendLease(
            this.keys.leases(s),
            this.keys.stats(s),
            this.keys.shard(s),
            lease.leaseId,
            Math.round(ms),
          ),
        ),
      ) >= 0;
    if (ok && lease.ip)
      await this.cmd.extendIpLock(this.keys.ipLock(lease.ip), lease.leaseId, Math.round(ms));
    return ok;
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
    const ttl = this.o.leaseTtlMs;
    await Promise.allSettled(
      [...groupByShard(leases)].map(async ([s, idx]) => {
        const reply = renewReply.parse(
          await this.cmd.renewLeases(
            this.keys.leases(s),
            this.keys.stats(s),
            this.keys.shard(s),
            ttl,
            ...idx.map((i) => leases[i]!.leaseId),
          ),
        );
        idx.forEach((i, j) => (out[i] = reply[j]! >= 0 ? reply[j]! : null));
      }),
    );
    await Promise.allSettled(
      leases.map(async (l, i) => {
        if (typeof out[i] !== 'number' || !l.ip) return;
        const held = await this.cmd.extendIpLock(this.keys.ipLock(l.ip), l.leaseId, ttl);
        // Another shard's host may hold the IP now: two hosts of one IP must not be fetched.
        if (Number(held) !== 1) out[i] = null;
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
    const n = await Promise.all(
      [...groupByShard(marks.map((m) => m.lease))].map(([s, idx]) =>
        waitOutShardMove(() =>
          this.cmd.leaseProgress(
            this.keys.leases(s),
            this.keys.stats(s),
            this.keys.shard(s),
            ...idx.flatMap((i) => [marks[i]!.lease.leaseId, marks[i]!.index]),
          ),
        ),
      ),
    );
    return n.reduce<number>((a, c) => a + Number(c), 0);
  }

  /** Open leases across shards, soonest deadline first within each shard (at most `limit` each). */
  async openLeases(limit = 1000): Promise<OpenLease[]> {
    const perShard = await Promise.all(
      Array.from({ length: this.shards }, async (_, s) =>
        listLeasesReply
          .parse(await this.cmd.listLeases(this.keys.leases(s), this.keys.shard(s), limit))
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
    const k = this.keys;
    const n = await Promise.all(
      Array.from({ length: this.shards }, (_, s) =>
        waitOutShardMove(() =>
          this.cmd.releaseLeases(k.ready(s), k.leases(s), k.stats(s), k.shard(s), agentId),
        ),
      ),
    );
    return n.reduce<number>((a, c) => a + Number(c), 0);
  }

  /** Returns the URLs of every expired lease to their queues. Returns how many leases. */
  async reclaimExpired(): Promise<number> {
    const k = this.keys;
    const n = await Promise.all(
      Array.from({ length: this.shards }, (_, s) =>
        this.cmd.reclaimExpired(k.ready(s), k.leases(s), k.stats(s), k.shard(s), 1000),
      ),
    );
    return n.reduce<number>((a, c) => a + Number(c), 0);
  }

  /**
   * Writes a host's policy into its shard (the next lease of the host uses it) and announces it
   * on the policy channel, so agents working the host apply it before their next request.
   */
  async setHostPolicy(
    host: string,
    policy: {
      gapMs: number | null;
      blocked: boolean;
      dailyBudget?: number | null;
      allowlisted?: boolean;
      /** Connections the agent may open to the host at once (default 1). */
      maxConnections?: number | null;
    },
  ): Promise<void> {
    const s = this.shardOf(host);
    const k = this.keys;
    await waitOutShardMove(() =>
      this.cmd.setHostPolicy(
        k.ready(s),
        k.stats(s),
        k.shard(s),
        host,
        policy.gapMs === null ? '' : String(Math.round(policy.gapMs)),
        policy.blocked ? '1' : '0',
        policy.dailyBudget == null ? '' : String(policy.dailyBudget),
        policy.allowlisted ? '1' : '0',
        policy.maxConnections == null ? '' : String(policy.maxConnections),
      ),
    );
    const live: HostPolicyNotice = {
      host,
      blocked: policy.blocked,
      gapMs: policy.gapMs ?? this.o.defaultGapMs,
    };
    await this.redis.publish(this.keys.policyChannel(), JSON.stringify(live));
  }

  /**
   * Lowers a host's priority class by `levels` (default 1; negative lifts earlier demotions;
   * the total stays within 0–9 classes), e.g. when crawl-quality rules find the host trap-heavy.
   * Due hosts of a higher class are leased before it; its queue, politeness and lease are
   * untouched. `reason` (e.g. `trap_heavy`) is kept as the host's `demote_reason`.
   */
  async demoteHost(
    host: string,
    reason: string,
    levels = 1,
  ): Promise<{ hostClass: number; demoted: number }> {
    if (!Number.isInteger(levels))
      throw new FrontierInputError(`demoteHost ${host}: levels ${levels} is not an integer`);
    const s = this.shardOf(host);
    const k = this.keys;
    const [hostClass, demoted] = demoteReply.parse(
      await waitOutShardMove(() =>
        this.cmd.demoteHost(k.ready(s), k.stats(s), k.shard(s), host, levels, reason),
      ),
    );
    return { hostClass, demoted };
  }

  /** A host's priority class and what made it (a host the frontier does not know: the default). */
  async hostPriority(host: string): Promise<HostPriority> {
    const [prio, seed, sites, demoted, reason] = await this.redis.hmget(
      this.keys.host(this.shardOf(host), host),
      'prio',
      'seed_prio',
      'in_sites',
      'demoted',
      'demote_reason',
    );
    return {
      hostClass: prio === null ? DISCOVERED_HOST_CLASS : Number(prio),
      seedPriority: seed === null ? null : Number(seed),
      inLinkSites: Math.floor((sites ?? '').length / SITE_ID_LENGTH),
      demoted: Number(demoted ?? 0),
      demoteReason: reason ?? null,
    };
  }

  /**
   * Changes crawl-wide defaults from the next call on (operators' settings, applied live): the
   * gap of hosts without a rate limit of their own and the re-crawl share of leases.
   */
  setDefaults(d: { defaultGapMs?: number; recrawlShare?: number }): void {
    if (d.defaultGapMs !== undefined) this.o.defaultGapMs = d.defaultGapMs;
    if (d.recrawlShare !== undefined) this.o.recrawlShare = d.recrawlShare;
  }

  /** The crawl-wide defaults in effect. */
  get defaults(): { defaultGapMs: number; recrawlShare: number } {
    return { defaultGapMs: this.o.defaultGapMs, recrawlShare: this.o.recrawlShare };
  }

  /**
   * Copies a domain-suffix policy into every shard (null removes it), where hosts first seen
   * from now on take it (enqueueUrls). Hosts already known are rewritten by the caller through
   * setHostPolicy: find them with knownHostsUnder().
   */
  async setSuffixPolicy(suffix: string, policy: SuffixPolicy | null): Promise<void> {
    const packed =
      policy &&
      [
        policy.gapMs == null ? '' : String(Math.round(policy.gapMs)),
        policy.blocked == null ? '' : policy.blocked ? '1' : '0',
        policy.dailyBudget == null ? '' : String(policy.dailyBudget),
        policy.allowlisted == null ? '' : policy.allowlisted ? '1' : '0',
        policy.maxConnections == null ? '' : String(policy.maxConnections),
      ].join('|');
    await Promise.all(
      Array.from({ length: this.shards }, (_, s) =>
        packed === null
          ? this.redis.hdel(this.keys.suffixPolicies(s), suffix)
          : this.redis.hset(this.keys.suffixPolicies(s), suffix, packed),
      ),
    );
  }

  /** Hosts the frontier knows that are `suffix` or end in `.suffix` (SCAN, never KEYS). */
  async knownHostsUnder(suffix: string): Promise<string[]> {
    const hosts: string[] = [];
    const marker = '}:h:';
    await scanKeys(this.redis, `${this.o.prefix}:{*}:h:*${suffix}`, (keys) => {
      for (const key of keys) {
        const host = key.slice(key.indexOf(marker) + marker.length);
        if (host === suffix || host.endsWith(`.${suffix}`)) hosts.push(host);
      }
    });
    return hosts;
  }

  /** Counters summed over all shards (also reclaims expired leases). */
  async stats(): Promise<FrontierStats> {
    const k = this.keys;
    const replies = await Promise.all(
      Array.from({ length: this.shards }, (_, s) =>
        this.cmd.shardStats(
          k.ready(s),
          k.leases(s),
          k.stats(s),
          k.seen(s),
          k.dead(s),
          k.shard(s),
          this.seenMode,
        ),
      ),
    );
    const t: FrontierStats = {
      shards: this.shards,
      hosts: 0,
      queuedUrls: 0,
      seenUrls: 0,
      seenBytes: 0,
      seenFalsePositiveRate: 0,
      readyHosts: 0,
      scheduledHosts: 0,
      openLeases: 0,
      deadLetters: 0,
      processedUrls: 0,
    };
    for (const r of replies) {
      const v = statsReply.parse(r);
      t.hosts += v[0]!;
      t.queuedUrls += v[1]!;
      t.seenUrls += v[2]!;
      t.readyHosts += v[3]!;
      t.scheduledHosts += v[4]!;
      t.openLeases += v[5]!;
      t.deadLetters += v[6]!;
      t.processedUrls += v[7]!;
      t.seenBytes += v[8]!;
      if (this.seenMode === 'bloom') {
        const k = this.bloomHashes;
        t.seenFalsePositiveRate += (1 - Math.exp((-k * v[2]!) / this.bloomBits)) ** k / this.shards;
      }
    }
    return t;
  }

  /** True when nothing is queued for a leasable host and no lease is open. */
  async isIdle(): Promise<boolean> {
    const s = await this.stats();
    return s.scheduledHosts === 0 && s.openLeases === 0;
  }

  /**
   * Dead letters held now, by reason (`robots_unavailable`, `private_address`, `http_503`…),
   * summed over shards. Letters parked before these counts existed are not in them.
   */
  async deadLettersByReason(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const all = await Promise.all(
      Array.from({ length: this.shards }, (_, s) => this.redis.hgetall(this.keys.stats(s))),
    );
    for (const fields of all)
      for (const [field, value] of Object.entries(fields)) {
        const n = Number(value);
        if (!field.startsWith('dead:') || !(n > 0)) continue;
        const reason = field.slice('dead:'.length);
        out[reason] = (out[reason] ?? 0) + n;
      }
    return out;
  }

  /**
   * Hosts whose daily page budget is spent, waiting in the ready set for the next UTC day (where
   * the lease script puts them), and the URLs queued on them.
   */
  async budgetSpent(): Promise<{ hosts: number; urls: number }> {
    const [sec] = await this.redis.time();
    const tomorrow = (Math.floor(Number(sec) / 86_400) + 1) * 86_400_000;
    const perShard = await Promise.all(
      Array.from({ length: this.shards }, async (_, s) => {
        const hosts = await this.redis.zrangebyscore(this.keys.ready(s), tomorrow, tomorrow);
        const queued = await Promise.all(
          hosts.map((h) => this.redis.hget(this.keys.host(s, h), 'n')),
        );
        return { hosts: hosts.length, urls: queued.reduce((a, n) => a + Number(n ?? 0), 0) };
      }),
    );
    return perShard.reduce((a, b) => ({ hosts: a.hosts + b.hosts, urls: a.urls + b.urls }), {
      hosts: 0,
      urls: 0,
    });
  }

  /**
   * The host's live policy: blocked, and its gap in ms (the default when it has none). Agents read
   * it before every request, so a block or a rate change applies at once, even mid-lease.
   */
  async hostPolicy(host: string): Promise<Omit<HostPolicyNotice, 'host'>> {
    const [blocked, gap] = await this.redis.hmget(
      this.keys.host(this.shardOf(host), host),
      'blocked',
      'gap_ms',
    );
    return { blocked: blocked === '1', gapMs: gap ? Number(gap) : this.o.defaultGapMs };
  }

  /** Reads a host's frontier state (for the API and tests). */
  async hostState(host: string): Promise<{ queued: number; fields: Record<string, string> }> {
    const fields = await this.redis.hgetall(this.keys.host(this.shardOf(host), host));
    return { queued: Number(fields.n ?? 0), fields };
  }

  /** Lists dead letters of every shard (at most `limit`), oldest first within a shard. */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    return (await this.deadLetterPage({ limit })).items;
  }

  /**
   * A page of dead letters, shard by shard, oldest first within a shard; `host` keeps one host's
   * (only its shard is read). `next` (shard and offset in its list) continues where the page
   * ended; null when nothing is left. Lists change under a reader: a letter re-queued between two
   * pages may shift the next page by one (none is lost: each list only shrinks at its head on
   * re-queue, and grows at its tail).
   */
  async deadLetterPage(opts: {
    limit: number;
    host?: string;
    from?: { shard: number; offset: number };
  }): Promise<{ items: DeadLetter[]; next: { shard: number; offset: number } | null }> {
    const items: DeadLetter[] = [];
    const only = opts.host === undefined ? null : this.shardOf(opts.host);
    let shard = Math.max(opts.from?.shard ?? 0, only ?? 0);
    let offset = opts.from && opts.from.shard === shard ? opts.from.offset : 0;
    const lastShard = only ?? this.shards - 1;
    const chunk = opts.host === undefined ? opts.limit : 1000;
    while (shard <= lastShard) {
      const rows = await this.redis.lrange(this.keys.dead(shard), offset, offset + chunk - 1);
      for (const row of rows) {
        offset++;
        const d = parseDeadLetter(row);
        if (opts.host !== undefined && d.host !== opts.host) continue;
        items.push(d);
        if (items.length === opts.limit) return { items, next: { shard, offset } };
      }
      if (rows.length < chunk) {
        shard++;
        offset = 0;
      }
    }
    return { items, next: null };
  }

  /** One host's dead letters (its shard's list, the first `scan` entries looked at). */
  async deadLettersOfHost(host: string, scan = 1000): Promise<DeadLetter[]> {
    const rows = await this.redis.lrange(this.keys.dead(this.shardOf(host)), 0, scan - 1);
    return rows.map(parseDeadLetter).filter((d) => d.host === host);
  }

  /** Re-queues dead letters (all shards, or one host's), attempts reset. Returns how many. */
  async requeueDeadLetters(opts: { limit?: number; host?: string } = {}): Promise<number> {
    const k = this.keys;
    const limit = opts.limit ?? 1_000_000;
    const shards = opts.host
      ? [this.shardOf(opts.host)]
      : Array.from({ length: this.shards }, (_, s) => s);
    let moved = 0;
    for (const s of shards) {
      if (moved >= limit) break;
      moved += Number(
        await waitOutShardMove(() =>
          this.cmd.requeueDeadLetters(
            k.ready(s),
            k.stats(s),
            k.dead(s),
            k.shard(s),
            limit - moved,
            opts.host ?? '',
          ),
        ),
      );
    }
    return moved;
  }
}

export { FrontierDataError, FrontierInputError };

/** A dead letter as stored by the scripts (JSON `{h, r, e, t}`), validated. */
function parseDeadLetter(row: string): DeadLetter {
  const d = deadLetterSchema.parse(JSON.parse(row));
  const e = decodeEntry(d.e);
  return { host: d.h, reason: d.r, url: e.url, attempts: e.attempts, at: d.t };
}
