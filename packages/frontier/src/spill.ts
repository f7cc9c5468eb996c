import type { RedisClient } from '@crawler/adapters/redis';
import { Cluster } from 'ioredis';
import { z } from 'zod';
import { FrontierDataError } from './queue-entry';
import type { FrontierResources } from './resources';
import { defineFrontierScripts } from './scripts';
import { waitOutShardMove } from './script-replies';
import { FENCED, fencedReply } from './spill-fence';

/** An entry of a shard's overflow list: a URL spilled out of its host tier's head. */
export interface OverflowEntry {
  /** The list item as stored (the trim checks it). */
  raw: string;
  /** The shard's spill sequence: order within a host tier. */
  seq: string;
  tier: string;
  host: string;
  /** The queue entry (`fp|attempts|depth|redirects|source|url`). */
  entry: string;
}

/** A host tier's head that wants URLs back: how many, at most. */
export interface RefillNeed {
  host: string;
  tier: string;
  want: number;
}

/** What a shard's heads want back (refillNeeds-1.lua), and the overflow still to copy first. */
export interface RefillNeeds {
  overflow: number;
  needs: RefillNeed[];
}

/**
 * One host tier's part of a refill batch: the entries Postgres gave back, in order; for a parked
 * host (`want` 0), none, and `dropped` rows deleted in Postgres.
 */
export interface RefillGroup extends RefillNeed {
  entries: readonly string[];
  dropped?: number;
  /** Postgres holds no more rows of the tier (default: fewer entries came back than wanted). */
  exhausted?: boolean;
}

/** refillHeads-3.lua's answer for a batch it applied before. */
export const REFILL_ALREADY_APPLIED = -2;

const overflowPattern = /^(\d+)\|([0-9r])\|([^|]+)\|(.+)$/s;
const countReply = z.coerce.number();
const needsReply = z.tuple([z.coerce.number()]).rest(z.union([z.string(), z.number()]));

/** Parses an overflow list item (`seq|tier|host|entry`, includes/spill.lua). */
export function parseOverflow(raw: string): OverflowEntry {
  const m = overflowPattern.exec(raw);
  if (!m) throw new FrontierDataError(`overflow entry invalid: ${raw.slice(0, 80)}`);
  return { raw, seq: m[1]!, tier: m[2]!, host: m[3]!, entry: m[4]! };
}

/**
 * The Redis side of the bounded heads (FRONTIER_HEAD_MAX): the enqueue script spills what a head
 * cannot hold into the shard's overflow list and the lease script asks for refills; this reads
 * and trims the overflow (spillTrim-1.lua), says what the heads want (refillNeeds-1.lua) and
 * applies refill batches (refillHeads-3.lua) for the coordinator's spiller and refiller
 * (spill-pump.ts), which keep the spilled URLs in Postgres.
 */
export class FrontierSpill {
  constructor(
    private readonly r: FrontierResources,
    private readonly ownConnection = false,
  ) {}

  /**
   * The same spill on a Redis connection of its own (a duplicate of the frontier's; `close` ends
   * it): the pump's calls then never queue behind the frontier's other calls on one connection.
   */
  withOwnConnection(): FrontierSpill {
    const from = this.r.redis;
    const redis: RedisClient = from instanceof Cluster ? from.duplicate() : from.duplicate();
    return new FrontierSpill({ ...this.r, redis, cmd: defineFrontierScripts(redis) }, true);
  }

  /** Ends the connection of a spill made by withOwnConnection (nothing for the frontier's own). */
  close(): void {
    if (this.ownConnection) this.r.redis.disconnect();
  }

  /** Whether heads are bounded (FRONTIER_HEAD_MAX > 0). */
  get enabled(): boolean {
    return this.r.head.max > 0;
  }

  /** Shard count (the pump walks every shard). */
  get shards(): number {
    return this.r.shards;
  }

  /** The first `max` entries of a shard's overflow list, oldest first. */
  async readOverflow(shard: number, max: number): Promise<OverflowEntry[]> {
    const raw = await this.r.redis.lrange(this.r.keys.overflow(shard), 0, max - 1);
    return raw.map(parseOverflow);
  }

  /** Entries in a shard's overflow list (spilled, not yet copied to Postgres). */
  overflowLength(shard: number): Promise<number> {
    return this.r.redis.llen(this.r.keys.overflow(shard));
  }

  /** Trims the copied entries off the overflow list, once (0 when already trimmed). */
  async trimOverflow(
    shard: number,
    copied: readonly OverflowEntry[],
    epoch: number,
  ): Promise<number> {
    if (copied.length === 0) return 0;
    const n = await this.r.cmd.spillTrim(
      this.r.keys.overflow(shard),
      this.r.keys.spillEpoch(shard),
      copied[0]!.raw,
      copied.length,
      epoch,
    );
    return fencedReply(shard, epoch, countReply.parse(n));
  }

  /**
   * A pump of `epoch` starts working a shard (`take`: refused when a newer pump took it), or,
   * having settled every refill batch Postgres records for it, drops the applied batches' ids
   * (`forget`). After a newer pump's take, this epoch's calls change nothing.
   * @throws SpillFencedError when the shard is another pump's
   */
  async holdShard(shard: number, op: 'take' | 'forget', epoch: number): Promise<void> {
    const k = this.r.keys;
    const n = await this.r.cmd.spillShardEpoch(k.spillEpoch(shard), k.shard(shard), op, epoch);
    fencedReply(shard, epoch, countReply.parse(n) === 1 ? 0 : FENCED);
  }

  /** Up to `max` hosts of a shard that asked for a refill. */
  refillHosts(shard: number, max: number): Promise<string[]> {
    return this.r.redis.srandmember(this.r.keys.refillHosts(shard), max);
  }

  /**
   * What up to `maxHosts` hosts of a shard's refill set want back (at most about `maxUrls` URLs),
   * dropping hosts that want nothing any more; forgets the applied batches `forget` (their
   * Postgres records are gone) and reports the overflow list's length. A moving shard: nothing.
   */
  async refillNeeds(
    shard: number,
    maxHosts: number,
    maxUrls: number,
    epoch: number,
    forget: readonly string[] = [],
  ): Promise<RefillNeeds> {
    const { cmd, keys, head } = this.r;
    const reply = needsReply.parse(
      await cmd.refillNeeds(
        keys.stats(shard),
        keys.shard(shard),
        head.max,
        head.low,
        maxHosts,
        maxUrls,
        epoch,
        ...forget,
      ),
    );
    const [overflow, ...flat] = reply;
    fencedReply(shard, epoch, overflow);
    const needs: RefillNeed[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3)
      needs.push({ host: String(flat[i]), tier: String(flat[i + 1]), want: Number(flat[i + 2]) });
    return { overflow, needs };
  }

  /**
   * Applies a refill batch (refillHeads-3.lua): each group's entries join the tail of its host
   * tier's head; a group that got fewer entries than it wanted tells Redis Postgres has no more
   * of that tier. Returns the entries brought back, or REFILL_ALREADY_APPLIED.
   */
  async applyRefill(
    shard: number,
    batch: string,
    groups: readonly RefillGroup[],
    epoch: number,
  ): Promise<number> {
    const k = this.r.keys;
    const args: (string | number)[] = [];
    for (const g of groups)
      args.push(
        g.host,
        g.tier,
        (g.exhausted ?? g.entries.length < g.want) ? '1' : '0',
        g.dropped ?? 0,
        g.entries.length,
        ...g.entries,
      );
    const n = await waitOutShardMove(() =>
      this.r.cmd.refillHeads(
        k.ready(shard),
        k.stats(shard),
        k.dead(shard),
        k.shard(shard),
        batch,
        this.r.head.low,
        epoch,
        ...args,
      ),
    );
    return fencedReply(shard, epoch, countReply.parse(n));
  }

  /** Whether Redis applied a refill batch (its id is still recorded). */
  async applied(shard: number, batch: string): Promise<boolean> {
    return (await this.r.redis.sismember(this.r.keys.refillDone(shard), batch)) === 1;
  }
}
