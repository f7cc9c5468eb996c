import { randomUUID } from 'node:crypto';
import type { FrontierSpill } from './spill';
import type { ClaimedBatch, SpillStore } from './spill-store';

/** Overflow entries copied into Postgres per statement. */
const SPILL_CHUNK = 2000;

export interface SpillPumpOptions {
  /** Hosts refilled per shard per round (default 200). */
  hostsPerRound?: number;
  /** Shards worked at once in a round (default 8). */
  parallel?: number;
  /**
   * Called after a refill batch is in Redis and before its rows are deleted: tests stop the
   * process here (a crash between the two), production passes nothing.
   */
  afterPush?: (b: ClaimedBatch) => void | Promise<void>;
}

/** What one round did: entries copied to Postgres, URLs brought back to heads. */
export interface SpillRound {
  spilled: number;
  refilled: number;
}

/**
 * The spiller and refiller of the bounded heads, one round at a time (the coordinator runs rounds
 * in a loop, tests run them to completion before each lease). Spill: copy each shard's overflow
 * list into Postgres (insert-or-skip on the spill sequence), then trim what was copied; a crash
 * in between copies again and trims once. Refill: for a host asking for URLs, claim its tier's
 * first rows under a new batch id (recorded in Postgres), apply the batch in Redis (which records
 * the id, so applying twice changes nothing), delete the rows, forget the id. On start,
 * `recover` settles batches a crashed refiller left: applied in Redis → delete the rows; not →
 * release them. Nothing spilled is lost or queued twice. One pump per installation at a time.
 */
export class SpillPump {
  private recovered = false;

  constructor(
    private readonly spill: FrontierSpill,
    private readonly store: SpillStore,
    private readonly opts: SpillPumpOptions = {},
  ) {}

  /** Settles the batches a stopped refiller left half done (every shard). */
  async recover(): Promise<number> {
    let settled = 0;
    for (let s = 0; s < this.spill.shards; s++) {
      for (const b of await this.store.claimed(s)) {
        if (await this.spill.applied(s, b.batch)) {
          await this.store.deleteBatch(b);
          await this.spill.forget(s, b.batch);
        } else {
          await this.store.releaseBatch(b);
        }
        settled++;
      }
    }
    this.recovered = true;
    return settled;
  }

  /** Copies a shard's whole overflow list into Postgres and trims it. Returns entries copied. */
  async spillShard(shard: number): Promise<number> {
    let copied = 0;
    for (;;) {
      const rows = await this.spill.readOverflow(shard, SPILL_CHUNK);
      if (rows.length === 0) return copied;
      await this.store.insert(shard, rows);
      await this.spill.trimOverflow(shard, rows);
      copied += rows.length;
    }
  }

  /** Refills the heads of up to hostsPerRound hosts of a shard. Returns URLs brought back. */
  async refillShard(shard: number): Promise<number> {
    let refilled = 0;
    for (const host of await this.spill.refillHosts(shard, this.opts.hostsPerRound ?? 200)) {
      const needs = await this.spill.needs(shard, host);
      // Nothing wanted (any more): an empty batch lets the script drop the host from the set.
      if (needs.length === 0) needs.push({ tier: '0', want: 0 });
      for (const { tier, want } of needs)
        refilled += await this.refillTier(shard, host, tier, want);
    }
    return refilled;
  }

  private async refillTier(shard: number, host: string, tier: string, want: number) {
    const b: ClaimedBatch = { batch: randomUUID(), host, tier };
    const entries = want > 0 ? await this.store.claim(shard, host, tier, want, b.batch) : [];
    const n = await this.spill.applyRefill(
      shard,
      b.batch,
      host,
      tier,
      entries,
      entries.length < want,
    );
    await this.opts.afterPush?.(b);
    if (want > 0) await this.store.deleteBatch(b);
    await this.spill.forget(shard, b.batch);
    return Math.max(0, n);
  }

  /**
   * One round over every shard: recover (first round), then spill and refill each shard, up to
   * `parallel` shards at a time (default 8; shards share no state, each is worked in order).
   */
  async round(): Promise<SpillRound> {
    if (!this.recovered) await this.recover();
    const out: SpillRound = { spilled: 0, refilled: 0 };
    let next = 0;
    const worker = async () => {
      for (let s = next++; s < this.spill.shards; s = next++) {
        const spilled = await this.spillShard(s);
        const refilled = await this.refillShard(s);
        out.spilled += spilled;
        out.refilled += refilled;
      }
    };
    await Promise.all(Array.from({ length: this.opts.parallel ?? 8 }, worker));
    return out;
  }

  /**
   * Rounds until every shard's overflow is copied and no host asks for a refill that Postgres
   * can serve (tests and one-shot crawls: the heads are then as full as they can be).
   */
  async drain(maxRounds = 100): Promise<void> {
    for (let i = 0; i < maxRounds; i++) {
      const r = await this.round();
      if (r.spilled === 0 && r.refilled === 0 && !(await this.anyRefillAsked())) return;
    }
  }

  private async anyRefillAsked(): Promise<boolean> {
    for (let s = 0; s < this.spill.shards; s++)
      if ((await this.spill.refillHosts(s, 1)).length > 0) return true;
    return false;
  }
}
