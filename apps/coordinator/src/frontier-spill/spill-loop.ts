import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import {
  SpillFencedError,
  SpillPump,
  SpillStore,
  type Frontier,
  type FrontierSpill,
  type SpillPumpOptions,
} from '@crawler/frontier';
import pg from 'pg';

/** How long the pump's lease lives unless renewed (ms): another coordinator takes over after it. */
const LEASE_MS = 30_000;
/** How often the lease is renewed while a round runs (ms). */
const RENEW_MS = LEASE_MS / 6;
/**
 * A pump whose lease was last renewed longer ago than this starts no further shard (ms). This
 * only spares work: correctness does not depend on clocks, since every write of a pump checks
 * its epoch in Postgres (and in Redis per shard), and a takeover raises it.
 */
const FENCE_MS = LEASE_MS / 2;

/**
 * Runs the frontier's spiller and refiller (SpillPump) while heads are bounded
 * (FRONTIER_HEAD_MAX > 0): round after round while there is work, pausing `everyMs` when a round
 * found none. One coordinator of the installation runs it at a time: it holds the lease of
 * `frontier_spill_owner` in Postgres, where the rows are (SpillStore.acquire), under an epoch
 * every write checks. A pump whose writes are refused (taken over, or the spill cleared by a
 * rebuild) is dropped, and the next round starts a new one under a new lease, recovering every
 * shard. It runs only when Redis and Postgres name the same spill dataset (spill-dataset.ts).
 */
export class FrontierSpillLoop {
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly pool: pg.Pool;
  private readonly spill: FrontierSpill;
  private readonly store: SpillStore;
  /** The pump of the lease held now, or null. */
  private pump: SpillPump | null = null;
  private epoch: number | null = null;
  /** When the lease was last taken or renewed (performance.now()). */
  private lockedAt = -Infinity;
  /** What was said last about waiting (logged once per change). */
  private waiting: string | null = null;
  /** Spilled (copied to Postgres) and refilled URLs since start, for metrics. */
  readonly totals = { spilled: 0, refilled: 0 };

  constructor(
    private readonly deps: {
      frontier: Frontier;
      redis: RedisClient;
      databaseUrl: string;
      owner: string;
      log: Logger;
      /** Test hooks of the pump (SpillPumpOptions.afterClaim, afterPush). */
      pumpHooks?: Pick<SpillPumpOptions, 'afterClaim' | 'afterPush'>;
    },
  ) {
    // The pump works many shards at once; each holds a connection for one statement at a time.
    this.pool = new pg.Pool({ connectionString: deps.databaseUrl, max: 8 });
    this.pool.on('error', (err) =>
      deps.log.warn({ err }, 'frontier spill: idle Postgres client failed'),
    );
    // A Redis connection of its own: its calls never queue behind the coordinator's others.
    this.spill = deps.frontier.spill.enabled
      ? deps.frontier.spill.withOwnConnection()
      : deps.frontier.spill;
    this.store = new SpillStore(this.pool, deps.frontier.keys.prefix);
  }

  /** Starts the loop (nothing when heads are not bounded). */
  start(everyMs: number): void {
    if (!this.deps.frontier.spill.enabled) return;
    this.running = this.loop(everyMs);
  }

  /** The epoch of the lease held now, or null (tests, metrics). */
  get heldEpoch(): number | null {
    return this.epoch;
  }

  private stopping: Promise<void> | null = null;

  /**
   * Stops after the current round, gives the lease up, closes the pool and the connection.
   * Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    this.stopped = true;
    await this.running;
    if (this.epoch !== null) {
      await this.store.give(this.epoch).catch(() => undefined);
      await this.releaseMarker().catch(() => undefined);
    }
    await this.pool.end();
    this.spill.close();
  }

  /** Takes or renews the lease; true while this coordinator holds it (with a pump for it). */
  private async holdLease(): Promise<boolean> {
    const { redis, frontier, owner, log } = this.deps;
    const askedAt = performance.now();
    if (this.epoch !== null) {
      if (await this.store.renew(this.epoch, LEASE_MS)) {
        this.lockedAt = askedAt;
        await redis.set(frontier.keys.spillLock(), owner, 'PX', LEASE_MS);
        return true;
      }
      log.warn({ epoch: this.epoch }, 'frontier spill: the pump lease was taken over');
      this.drop();
    }
    const dataset = await redis.get(frontier.keys.spillDataset());
    if (!dataset) {
      this.wait('no spill dataset in Redis yet: the frontier is being initialised or rebuilt');
      return false;
    }
    const own = await this.store.acquire(owner, dataset, LEASE_MS);
    if (!own) {
      const o = await this.store.ownership();
      this.wait(
        o.dataset !== dataset
          ? `Postgres holds the spill of another Redis dataset (${o.dataset ?? 'none'}, Redis names ${dataset}): a frontier rebuild names it`
          : `another coordinator's pump holds the lease (${o.owner ?? 'unknown'})`,
      );
      return false;
    }
    this.waiting = null;
    this.epoch = own.epoch;
    this.lockedAt = askedAt;
    this.pump = new SpillPump(this.spill, this.store, {
      epoch: own.epoch,
      ...this.deps.pumpHooks,
    });
    await redis.set(frontier.keys.spillLock(), owner, 'PX', LEASE_MS);
    log.info({ epoch: own.epoch, dataset }, 'frontier spill: pump lease taken');
    return true;
  }

  private wait(why: string): void {
    if (this.waiting !== why) this.deps.log.info({ why }, 'frontier spill: pump waiting');
    this.waiting = why;
  }

  /** Forgets the lease and its pump (the next round takes a new one). */
  private drop(): void {
    this.epoch = null;
    this.pump = null;
    this.lockedAt = -Infinity;
  }

  /** Deletes the Redis marker that says a pump runs, when it is this coordinator's. */
  private async releaseMarker(): Promise<void> {
    const { redis, frontier, owner } = this.deps;
    if ((await redis.get(frontier.keys.spillLock())) === owner)
      await redis.del(frontier.keys.spillLock());
  }

  /** True once the lease is no longer surely this coordinator's (see FENCE_MS). */
  private fenced(): boolean {
    return this.stopped || performance.now() - this.lockedAt > FENCE_MS;
  }

  /** One round under the lease, renewing it meanwhile; shards stop starting once fenced. */
  private async leasedRound(pump: SpillPump): Promise<{ spilled: number; refilled: number }> {
    const renew = setInterval(() => {
      this.holdLease().catch((err: unknown) =>
        this.deps.log.warn({ err }, 'frontier spill: lease renewal failed'),
      );
    }, RENEW_MS);
    try {
      return await pump.round(() => this.fenced() || this.pump !== pump);
    } finally {
      clearInterval(renew);
    }
  }

  private async loop(everyMs: number): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let idle = true;
      try {
        if ((await this.holdLease()) && this.pump) {
          const r = await this.leasedRound(this.pump);
          this.totals.spilled += r.spilled;
          this.totals.refilled += r.refilled;
          idle = r.spilled === 0 && r.refilled === 0;
        }
        failures = 0;
      } catch (err) {
        if (err instanceof SpillFencedError) {
          // Nothing was changed by the refused write; a new pump recovers every shard.
          this.deps.log.warn({ err: err.message }, 'frontier spill: pump fenced; starting over');
          this.drop();
        } else {
          failures++;
          this.deps.log.warn({ err, failures }, 'frontier spill round failed');
        }
      }
      if (idle || failures > 0)
        await new Promise((r) => setTimeout(r, everyMs * Math.min(2 ** failures, 40)));
    }
  }
}
