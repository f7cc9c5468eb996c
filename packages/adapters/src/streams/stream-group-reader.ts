import { setTimeout as sleep } from 'node:timers/promises';
import { redisErrorCode, type RedisClient } from '../redis';
import {
  pairsToObject,
  parseAutoclaimReply,
  parseReadReply,
  type RawStreamEntry,
} from './parse-stream-reply';

/** An entry read through a consumer group: its stream, id and fields `[name, value, …]`. */
export interface StreamEntry {
  stream: string;
  id: string;
  fields: string[];
}

/** What {@link StreamGroupReader.ack} needs of an entry. */
export interface StreamEntryRef {
  stream: string;
  id: string;
}

export interface StreamGroupReaderOptions {
  /** Stream keys read together (e.g. the partitions of a feed); each may live in its own slot. */
  streams: readonly string[];
  group: string;
  /** This reader's name in the group; a restarted reader with the same name resumes its pending entries. */
  consumer: string;
  /** Where a group that does not exist yet starts: `0` every retained entry (default), `$` only new ones. */
  startAt?: '0' | '$';
  /**
   * Entries pending this long (ms) with any consumer of the group are taken over (XAUTOCLAIM),
   * so the entries of a consumer that died are not stuck. Default 60,000; 0 turns it off.
   */
  claimIdleMs?: number;
}

/** One stream as its group sees it (XINFO). */
export interface StreamGroupState {
  stream: string;
  /** Entries in the stream now (retention is bounded by MAXLEN). */
  length: number;
  /** Entries delivered to the group's consumers and not yet acknowledged. */
  pending: number;
  /** Entries not yet delivered to the group; null when Redis cannot tell (after deletions). */
  lag: number | null;
  lastDeliveredId: string;
  lastGeneratedId: string;
}

/** A stream id from an XINFO field (`0-0` when absent). */
function idOf(value: unknown): string {
  return typeof value === 'string' ? value : '0-0';
}

/** On a Redis Cluster the streams are in different slots: no multi-key BLOCK, so poll this often. */
const CLUSTER_POLL_MS = 100;

/** `budget` split over the streams, starting at `offset` so small budgets rotate; zero shares dropped. */
function shares(streams: readonly string[], budget: number, offset: number): [string, number][] {
  const n = streams.length;
  const base = Math.floor(budget / n);
  const out: [string, number][] = [];
  for (let k = 0; k < n; k++) {
    const share = base + (k < budget % n ? 1 : 0);
    const stream = streams[(offset + k) % n];
    if (share > 0 && stream !== undefined) out.push([stream, share]);
  }
  return out;
}

/**
 * Reads several Redis streams through one consumer group, at least once. A reader first re-reads
 * the entries it had read but not acknowledged before (it crashed, or its batch failed), then
 * takes over entries left pending by consumers that went away (idle longer than `claimIdleMs`),
 * then reads new ones. Each `read()` returns at most `count` entries, split fairly over the
 * streams. Entries are acknowledged with `ack()` once the caller is done with them.
 *
 * BLOCK holds the connection: give the reader a Redis connection of its own.
 */
export class StreamGroupReader {
  /** Pending entries whose data was trimmed away (MAXLEN) before they were processed; acknowledged. */
  trimmed = 0;
  /** Entries taken over from other consumers. */
  claimed = 0;
  private readonly streams: readonly string[];
  private readonly claimIdleMs: number;
  /** Streams whose pending entries are still being re-read, with the id to continue after. */
  private readonly recovering = new Map<string, string>();
  private readonly claimCursor = new Map<string, string>();
  private nextClaimAt = 0;
  private rotation = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: StreamGroupReaderOptions,
  ) {
    if (opts.streams.length === 0) throw new RangeError('StreamGroupReader: no streams');
    this.streams = [...opts.streams];
    this.claimIdleMs = opts.claimIdleMs ?? 60_000;
    for (const stream of this.streams) this.recovering.set(stream, '0');
  }

  /** Creates the group on every stream (and the stream itself) where it does not exist yet. */
  async ensureGroups(): Promise<void> {
    await Promise.all(
      this.streams.map(async (stream) => {
        try {
          await this.redis.xgroup(
            'CREATE',
            stream,
            this.opts.group,
            this.opts.startAt ?? '0',
            'MKSTREAM',
          );
        } catch (err) {
          if (redisErrorCode(err) !== 'BUSYGROUP') throw err; // the group exists already
        }
      }),
    );
  }

  /**
   * Up to `count` entries (default 100): this consumer's unacknowledged ones first, then ones
   * claimed from dead consumers, then new ones. With `blockMs` > 0 and nothing to read, waits up
   * to that long for new entries. With `lingerMs` > 0, once something came, keeps reading for up
   * to that long until `count` are in hand: fewer, bigger batches (ClickHouse wants big inserts).
   * Returns [] when there is nothing.
   */
  async read(
    opts: { count?: number; blockMs?: number; lingerMs?: number } = {},
  ): Promise<StreamEntry[]> {
    const budget = Math.max(1, Math.floor(opts.count ?? 100));
    const out = await this.readOnce(budget, opts.blockMs ?? 0);
    const lingerMs = opts.lingerMs ?? 0;
    if (out.length === 0 || lingerMs <= 0) return out;
    for (const until = Date.now() + lingerMs; out.length < budget;) {
      const left = until - Date.now();
      if (left <= 0) break;
      const more = await this.readOnce(budget - out.length, left);
      if (more.length === 0) break;
      for (const entry of more) out.push(entry);
    }
    return out;
  }

  private async readOnce(budget: number, blockMs: number): Promise<StreamEntry[]> {
    while (this.recovering.size > 0) {
      const got = await this.readPending(budget);
      if (got.length > 0) return got;
    }
    if (this.claimIdleMs > 0 && Date.now() >= this.nextClaimAt) {
      const got = await this.claim(budget);
      if (got.length > 0) return got;
    }
    const got = await this.readNew(budget, 0);
    if (got.length > 0 || blockMs <= 0) return got;
    if (!('nodes' in this.redis)) return this.readNew(budget, blockMs);
    // A cluster has no BLOCK across slots: poll until something comes or the time is up.
    for (const until = Date.now() + blockMs; Date.now() < until;) {
      await sleep(Math.min(CLUSTER_POLL_MS, Math.max(1, until - Date.now())));
      const more = await this.readNew(budget, 0);
      if (more.length > 0) return more;
    }
    return [];
  }

  /**
   * Makes the next reads start again with this consumer's unacknowledged entries, e.g. after a
   * batch could not be processed: they come back at once instead of after `claimIdleMs`.
   */
  rewind(): void {
    for (const stream of this.streams) this.recovering.set(stream, '0');
  }

  /** Acknowledges entries (they leave the group's pending list). */
  async ack(entries: Iterable<StreamEntryRef>): Promise<void> {
    const byStream = new Map<string, string[]>();
    for (const { stream, id } of entries) {
      const ids = byStream.get(stream);
      if (ids) ids.push(id);
      else byStream.set(stream, [id]);
    }
    await Promise.all(
      [...byStream].map(([stream, ids]) => this.redis.xack(stream, this.opts.group, ...ids)),
    );
  }

  /** How far the group is on each stream. */
  async state(): Promise<StreamGroupState[]> {
    return Promise.all(
      this.streams.map(async (stream) => {
        const [groups, info] = await Promise.all([
          this.redis.call('XINFO', 'GROUPS', stream),
          this.redis.call('XINFO', 'STREAM', stream),
        ]);
        const group = (Array.isArray(groups) ? groups : [])
          .map(pairsToObject)
          .find((g) => g.name === this.opts.group);
        const s = pairsToObject(info);
        const lag = group?.lag;
        return {
          stream,
          length: Number(s.length ?? 0),
          pending: Number(group?.pending ?? 0),
          lag: lag === null || lag === undefined ? null : Number(lag),
          lastDeliveredId: idOf(group?.['last-delivered-id']),
          lastGeneratedId: idOf(s['last-generated-id']),
        };
      }),
    );
  }

  /** True when the group has been delivered every entry of every stream and acknowledged them all. */
  async caughtUp(): Promise<boolean> {
    return (await this.state()).every(
      (s) => s.pending === 0 && s.lastDeliveredId === s.lastGeneratedId,
    );
  }

  private async readPending(budget: number): Promise<StreamEntry[]> {
    const recovering = [...this.recovering.keys()];
    const replies = await Promise.all(
      shares(recovering, budget, 0).map(async ([stream, count]) => {
        const after = this.recovering.get(stream) ?? '0';
        const reply = await this.xreadgroup(count, 0, [stream], after);
        const entries = reply.get(stream) ?? [];
        if (entries.length === 0) this.recovering.delete(stream);
        else this.recovering.set(stream, entries[entries.length - 1]?.id ?? after);
        return [stream, entries] as const;
      }),
    );
    return this.usable(replies);
  }

  private async claim(budget: number): Promise<StreamEntry[]> {
    const replies = await Promise.all(
      shares(this.streams, budget, this.rotation).map(async ([stream, count]) => {
        const { cursor, entries } = parseAutoclaimReply(
          await this.redis.call(
            'XAUTOCLAIM',
            stream,
            this.opts.group,
            this.opts.consumer,
            this.claimIdleMs,
            this.claimCursor.get(stream) ?? '0-0',
            'COUNT',
            count,
          ),
        );
        this.claimCursor.set(stream, cursor);
        return [stream, entries] as const;
      }),
    );
    // A sweep is over when every stream's cursor came back to the start.
    if (this.streams.every((s) => (this.claimCursor.get(s) ?? '0-0') === '0-0')) {
      this.nextClaimAt = Date.now() + this.claimIdleMs / 2;
    }
    const got = await this.usable(replies);
    this.claimed += got.length;
    return got;
  }

  private async readNew(budget: number, blockMs: number): Promise<StreamEntry[]> {
    const parts = shares(this.streams, budget, this.rotation++);
    if (blockMs > 0) {
      // One blocking call over all streams; COUNT applies per stream, so take the smallest share.
      const count = Math.min(...parts.map(([, n]) => n));
      const streams = parts.map(([s]) => s);
      const reply = await this.xreadgroup(count, blockMs, streams, '>');
      return this.usable([...reply]);
    }
    const replies = await Promise.all(
      parts.map(async ([stream, count]) => {
        const reply = await this.xreadgroup(count, 0, [stream], '>');
        return [stream, reply.get(stream) ?? []] as const;
      }),
    );
    return this.usable(replies);
  }

  private async xreadgroup(
    count: number,
    blockMs: number,
    streams: readonly string[],
    from: string,
  ): Promise<Map<string, RawStreamEntry[]>> {
    const args: (string | number)[] = ['GROUP', this.opts.group, this.opts.consumer];
    args.push('COUNT', count);
    if (blockMs > 0) args.push('BLOCK', blockMs);
    args.push('STREAMS', ...streams, ...streams.map(() => from));
    return parseReadReply(await this.redis.call('XREADGROUP', ...args));
  }

  /** Entries with data; pending ones trimmed away meanwhile are acknowledged and counted. */
  private async usable(
    replies: Iterable<readonly [string, readonly RawStreamEntry[]]>,
  ): Promise<StreamEntry[]> {
    const out: StreamEntry[] = [];
    const gone: StreamEntryRef[] = [];
    for (const [stream, entries] of replies) {
      for (const { id, fields } of entries) {
        if (fields) out.push({ stream, id, fields });
        else gone.push({ stream, id });
      }
    }
    if (gone.length > 0) {
      await this.ack(gone);
      this.trimmed += gone.length;
    }
    return out;
  }
}
