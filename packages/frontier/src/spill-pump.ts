import { randomUUID } from 'node:crypto';
import type { FrontierSpill, RefillNeed } from './spill';
import type { ClaimedBatch, SpillStore } from './spill-store';

/** Overflow entries copied into Postgres per statement. */
const SPILL_CHUNK = 5000;

export interface SpillPumpOptions {
  /**
   * The spill's epoch this pump writes under (`SpillStore.acquire`). Without it the pump takes
   * the spill for itself at its first round (tests, one-shot crawls: one pump, no lease).
   */
  epoch?: number;
  /** Hosts of a shard's refill set one refill batch looks at (default 500). */
  hostsPerBatch?: number;
  /** URLs one refill batch wants, about (default 5,000; a host tier's want is never split). */
  urlsPerBatch?: number;
  /** Shards worked at once in a round (default 64: each waits on Redis and Postgres in turn). */
  parallel?: number;
  /**
   * Called after a refill batch is in Redis and before its Postgres rows are deleted: tests
   * stop the process here (a crash between the two), production passes nothing.
   */
  afterPush?: (b: ClaimedBatch) => void | Promise<void>;
  /**
   * Called after a refill batch is claimed in Postgres and before it is pushed into Redis:
   * tests pause a pump here (another takes over meanwhile), production passes nothing.
   */
  afterClaim?: (b: ClaimedBatch) => void | Promise<void>;
}

/** What one round did: entries copied to Postgres, URLs brought back to heads. */
export interface SpillRound {
  spilled: number;
  refilled: number;
}

/**
 * The spiller and refiller of the bounded heads, one round at a time (the coordinator runs rounds
 * in a loop, tests run them to completion before each lease). A round works every shard, several
 * at once, each in order: ask Redis what the shard's heads want and how long its overflow is
 * (one script call), copy the overflow into Postgres (insert-or-skip on the spill sequence) and
 * trim what was copied — a crash in between copies again and trims once —, then one refill
 * batch for many host tiers: one statement claims the wanted rows under a new batch id (recorded
 * in Postgres), one script call pushes them into the heads and records the id in Redis (applying
 * it twice changes nothing), one statement deletes the rows and the record; Redis forgets the id
 * at the shard's next call. Before a shard's first batch (and after any failure on it) its
 * recorded batches are settled: applied in Redis → delete the rows; not → drop the record, the
 * rows are unclaimed again. Nothing spilled is lost or queued twice. One pump per installation,
 * fenced: every write carries the pump's epoch (spill-store.ts), and a pump whose epoch was
 * superseded fails with SpillFencedError and changes nothing; its owner starts a new pump.
 */
export class SpillPump {
  /** Shards to recover before their next refill: all at first, and any whose work failed. */
  private readonly unrecovered: Set<number>;
  /** Per shard: batches confirmed in Postgres whose ids Redis may forget. */
  private readonly forget = new Map<number, string[]>();
  /** The epoch of every write (given, or taken once at the first write). */
  private epoch: Promise<number> | null;

  constructor(
    private readonly spill: FrontierSpill,
    private readonly store: SpillStore,
    private readonly opts: SpillPumpOptions = {},
  ) {
    this.unrecovered = new Set(Array.from({ length: spill.shards }, (_, s) => s));
    this.epoch = opts.epoch === undefined ? null : Promise.resolve(opts.epoch);
  }

  /** The epoch this pump writes under, taking the spill for itself first when none was given. */
  private ownEpoch(): Promise<number> {
    this.epoch ??= this.store.takeAlone();
    return this.epoch;
  }

  /** Settles the batches a stopped refiller left half done (every shard). Returns how many. */
  async recover(): Promise<number> {
    let settled = 0;
    for (let s = 0; s < this.spill.shards; s++) settled += await this.recoverShard(s);
    return settled;
  }

  private async recoverShard(shard: number): Promise<number> {
    const epoch = await this.ownEpoch();
    // From here on, an older pump's scripts change nothing on this shard: a batch it claimed is
    // either applied already (confirmed below) or never will be (released below).
    await this.spill.holdShard(shard, 'take', epoch);
    const batches = await this.store.claimed(shard);
    for (const batch of batches) {
      if (await this.spill.applied(shard, batch)) await this.store.confirm(epoch, batch);
      else await this.store.release(epoch, batch);
    }
    // Every batch Postgres recorded is settled: the ids Redis still holds name nothing.
    await this.spill.holdShard(shard, 'forget', epoch);
    this.forget.delete(shard);
    this.unrecovered.delete(shard);
    return batches.length;
  }

  /** Copies a shard's whole overflow list into Postgres and trims it. Returns entries copied. */
  async spillShard(shard: number): Promise<number> {
    if (this.unrecovered.has(shard)) await this.recoverShard(shard);
    const epoch = await this.ownEpoch();
    let copied = 0;
    for (;;) {
      const rows = await this.spill.readOverflow(shard, SPILL_CHUNK);
      if (rows.length === 0) return copied;
      await this.store.insert(epoch, rows);
      await this.spill.trimOverflow(shard, rows, epoch);
      copied += rows.length;
    }
  }

  /** One shard's part of a round: recover if due, spill, one refill batch. */
  async workShard(shard: number): Promise<SpillRound> {
    try {
      if (this.unrecovered.has(shard)) await this.recoverShard(shard);
      const epoch = await this.ownEpoch();
      const forget = this.forget.get(shard) ?? [];
      const { overflow, needs } = await this.spill.refillNeeds(
        shard,
        this.opts.hostsPerBatch ?? 500,
        this.opts.urlsPerBatch ?? 5000,
        epoch,
        forget,
      );
      this.forget.delete(shard);
      // The overflow first: a tier is only found exhausted once nothing of it waits there.
      const spilled = overflow > 0 ? await this.spillShard(shard) : 0;
      return { spilled, refilled: await this.refill(shard, needs, epoch) };
    } catch (err) {
      this.unrecovered.add(shard);
      throw err;
    }
  }

  private async refill(
    shard: number,
    needs: readonly RefillNeed[],
    epoch: number,
  ): Promise<number> {
    if (needs.length === 0) return 0;
    const batch = randomUUID();
    // A parked host's tiers (want 0) are not refilled: their rows are dropped, and counted.
    const drops = needs.filter((n) => n.want === 0);
    const wants = needs.filter((n) => n.want > 0);
    const dropped = await this.store.dropRows(epoch, shard, drops);
    const entries = await this.store.claim(epoch, shard, batch, wants);
    await this.opts.afterClaim?.({ shard, batch });
    const n = await this.spill.applyRefill(
      shard,
      batch,
      [
        ...wants.map((need, i) => ({ ...need, entries: entries[i]! })),
        ...drops.map((need, i) => ({
          ...need,
          entries: [],
          dropped: dropped[i]!.dropped,
          exhausted: !dropped[i]!.left,
        })),
      ],
      epoch,
    );
    await this.opts.afterPush?.({ shard, batch });
    // No row taken, no record written.
    if (entries.some((e) => e.length > 0)) await this.store.confirm(epoch, batch);
    this.forget.set(shard, [batch]);
    return Math.max(0, n);
  }

  /**
   * One round over every shard, up to `parallel` shards at a time (default 64; shards share no
   * state). A shard that fails does not stop the others; the first failure is thrown at the end.
   * No shard starts once `stop()` says true (the pump's lock is no longer surely held).
   */
  async round(stop: () => boolean = () => false): Promise<SpillRound> {
    const out: SpillRound = { spilled: 0, refilled: 0 };
    const errors: unknown[] = [];
    let next = 0;
    const worker = async () => {
      for (let s = next++; s < this.spill.shards && !stop(); s = next++) {
        try {
          const r = await this.workShard(s);
          out.spilled += r.spilled;
          out.refilled += r.refilled;
        } catch (err) {
          errors.push(err);
        }
      }
    };
    await Promise.all(Array.from({ length: this.opts.parallel ?? 64 }, worker));
    if (errors.length > 0) throw errors[0];
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
