import { z } from 'zod';
import { decodeEntry, deadLetterSchema } from './queue-entry';
import { allShards, type FrontierResources } from './resources';
import { waitOutShardMove } from './script-replies';
import type { DeadLetter } from './types';

/** Where a page of dead letters ended: a shard and the offset in its list. */
export interface DeadLetterCursor {
  shard: number;
  offset: number;
}

/**
 * The dead letters: URLs that failed `maxAttempts` times or whose host was parked, one list per
 * shard (oldest first), counted by reason in the shard's stats; read here, re-queued by
 * requeueDeadLetters-3.lua.
 */
export class FrontierDeadLetters {
  constructor(private readonly r: FrontierResources) {}

  /**
   * Dead letters held now, by reason (`robots_unavailable`, `private_address`, `http_503`…),
   * summed over shards. Letters parked before these counts existed are not in them.
   */
  async deadLettersByReason(): Promise<Record<string, number>> {
    return this.sumStats('dead:');
  }

  /**
   * Dead letters not kept, by reason, summed over shards: letters past a shard's byte cap
   * (FRONTIER_DEAD_LETTER_MAX_BYTES) and a parked host's spilled URLs, dropped in Postgres.
   */
  async deadLettersDroppedByReason(): Promise<Record<string, number>> {
    return this.sumStats('dead_dropped:');
  }

  /** The shards' stats fields `<prefix><reason>`, summed by reason (positive ones only). */
  private async sumStats(prefix: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const all = await Promise.all(
      allShards(this.r).map((s) => this.r.redis.hgetall(this.r.keys.stats(s))),
    );
    for (const fields of all)
      for (const [field, value] of Object.entries(fields)) {
        const n = Number(value);
        if (!field.startsWith(prefix) || !(n > 0)) continue;
        const reason = field.slice(prefix.length);
        out[reason] = (out[reason] ?? 0) + n;
      }
    return out;
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
    from?: DeadLetterCursor;
  }): Promise<{ items: DeadLetter[]; next: DeadLetterCursor | null }> {
    const items: DeadLetter[] = [];
    const only = opts.host === undefined ? null : this.r.shardOf(opts.host);
    let shard = Math.max(opts.from?.shard ?? 0, only ?? 0);
    let offset = opts.from && opts.from.shard === shard ? opts.from.offset : 0;
    const lastShard = only ?? this.r.shards - 1;
    const chunk = opts.host === undefined ? opts.limit : 1000;
    while (shard <= lastShard) {
      const rows = await this.r.redis.lrange(this.r.keys.dead(shard), offset, offset + chunk - 1);
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
    const rows = await this.r.redis.lrange(this.r.keys.dead(this.r.shardOf(host)), 0, scan - 1);
    return rows.map(parseDeadLetter).filter((d) => d.host === host);
  }

  /**
   * Re-queues dead letters (all shards, or one host's), attempts reset, a page of
   * {@link REQUEUE_PAGE} letters a script call (a long list never holds Redis). Returns how many.
   */
  async requeueDeadLetters(opts: { limit?: number; host?: string } = {}): Promise<number> {
    const k = this.r.keys;
    const limit = opts.limit ?? 1_000_000;
    const shards = opts.host ? [this.r.shardOf(opts.host)] : allShards(this.r);
    let moved = 0;
    for (const s of shards) {
      for (let cursor = 0; moved < limit && cursor >= 0;) {
        const reply = requeueReply.parse(
          await waitOutShardMove(() =>
            this.r.cmd.requeueDeadLetters(
              k.ready(s),
              k.stats(s),
              k.dead(s),
              k.shard(s),
              limit - moved,
              opts.host ?? '',
              cursor,
              REQUEUE_PAGE,
              this.r.head.max,
              this.r.head.low,
            ),
          ),
        );
        moved += reply[0];
        cursor = reply[1];
      }
    }
    return moved;
  }
}

/** Dead letters one requeue call looks at, at most. */
export const REQUEUE_PAGE = 1000;

const requeueReply = z.tuple([z.coerce.number(), z.coerce.number()]);

/** A dead letter as stored by the scripts (JSON `{h, r, e, t}`), validated. */
function parseDeadLetter(row: string): DeadLetter {
  const d = deadLetterSchema.parse(JSON.parse(row));
  const e = decodeEntry(d.e);
  return { host: d.h, reason: d.r, url: e.url, attempts: e.attempts, at: d.t };
}
