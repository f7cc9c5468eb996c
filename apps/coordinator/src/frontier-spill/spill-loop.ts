import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import { SpillPump, SpillStore, type Frontier, type FrontierSpill } from '@crawler/frontier';
import pg from 'pg';

/** How long the pump's lock lives unless renewed (ms): another coordinator takes over after it. */
const LOCK_MS = 30_000;
/** How often the lock is renewed while a round runs (ms). */
const RENEW_MS = LOCK_MS / 6;
/**
 * A pump whose lock was last renewed longer ago than this starts no further shard (ms): by the
 * time the lock can expire and another coordinator take it, this one has stopped (its shard in
 * hand is bounded by one spill and one refill batch), so two pumps never claim the same rows.
 */
const FENCE_MS = LOCK_MS / 2;

/**
 * Runs the frontier's spiller and refiller (SpillPump) while heads are bounded
 * (FRONTIER_HEAD_MAX > 0): round after round while there is work, pausing `everyMs` when a round
 * found none. One coordinator of the installation runs it at a time (a Redis lock it renews).
 */
export class FrontierSpillLoop {
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly pool: pg.Pool;
  private readonly spill: FrontierSpill;
  private readonly pump: SpillPump;
  /** When the lock was last taken or renewed (performance.now()). */
  private lockedAt = -Infinity;
  /** Spilled (copied to Postgres) and refilled URLs since start, for metrics. */
  readonly totals = { spilled: 0, refilled: 0 };

  constructor(
    private readonly deps: {
      frontier: Frontier;
      redis: RedisClient;
      databaseUrl: string;
      owner: string;
      log: Logger;
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
    this.pump = new SpillPump(this.spill, new SpillStore(this.pool, deps.frontier.keys.prefix));
  }

  /** Starts the loop (nothing when heads are not bounded). */
  start(everyMs: number): void {
    if (!this.deps.frontier.spill.enabled) return;
    this.running = this.loop(everyMs);
  }

  /** Stops after the current round and closes the Postgres pool and the Redis connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await this.pool.end();
    this.spill.close();
  }

  /** Takes or renews the pump's lock; true while this coordinator holds it. */
  private async holdLock(): Promise<boolean> {
    const { redis, frontier, owner } = this.deps;
    const key = frontier.keys.spillLock();
    const askedAt = performance.now();
    let held = (await redis.set(key, owner, 'PX', LOCK_MS, 'NX')) === 'OK';
    if (!held && (await redis.get(key)) === owner) held = (await redis.pexpire(key, LOCK_MS)) === 1;
    this.lockedAt = held ? askedAt : -Infinity;
    return held;
  }

  /** True once the lock is no longer surely this coordinator's (see FENCE_MS). */
  private fenced(): boolean {
    return this.stopped || performance.now() - this.lockedAt > FENCE_MS;
  }

  /** One round under the lock, renewing it meanwhile; shards stop starting once fenced. */
  private async lockedRound(): Promise<{ spilled: number; refilled: number }> {
    const renew = setInterval(() => {
      this.holdLock().catch((err: unknown) =>
        this.deps.log.warn({ err }, 'frontier spill: lock renewal failed'),
      );
    }, RENEW_MS);
    try {
      return await this.pump.round(() => this.fenced());
    } finally {
      clearInterval(renew);
    }
  }

  private async loop(everyMs: number): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let idle = true;
      try {
        if (await this.holdLock()) {
          const r = await this.lockedRound();
          this.totals.spilled += r.spilled;
          this.totals.refilled += r.refilled;
          idle = r.spilled === 0 && r.refilled === 0;
        }
        failures = 0;
      } catch (err) {
        failures++;
        this.deps.log.warn({ err, failures }, 'frontier spill round failed');
      }
      if (idle || failures > 0)
        await new Promise((r) => setTimeout(r, everyMs * Math.min(2 ** failures, 40)));
    }
  }
}
