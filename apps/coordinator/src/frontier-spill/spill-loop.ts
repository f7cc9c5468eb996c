import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import { SpillPump, SpillStore, type Frontier, type FrontierSpill } from '@crawler/frontier';
import pg from 'pg';

/** How long the pump's lock lives unless renewed (ms): another coordinator takes over after it. */
const LOCK_MS = 30_000;

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

  private async holdLock(): Promise<boolean> {
    const { redis, frontier, owner } = this.deps;
    const key = frontier.keys.spillLock();
    if ((await redis.set(key, owner, 'PX', LOCK_MS, 'NX')) === 'OK') return true;
    if ((await redis.get(key)) !== owner) return false;
    await redis.pexpire(key, LOCK_MS);
    return true;
  }

  private async loop(everyMs: number): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let idle = true;
      try {
        if (await this.holdLock()) {
          const r = await this.pump.round();
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
