import type { Frontier } from '@crawler/frontier';
import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import type { FleetRepository } from '../db/fleet-repository';
import { readHeartbeats } from '../agents/heartbeats';
import { nodeOf } from '../shards/list-shards';

/**
 * Keeps Postgres's record of the fleet: agents seen (from the heartbeat set in Redis, so an
 * agent that stopped is still listed with its last heartbeat) and the shard map (which Redis
 * node serves each logical shard, and since when). Runs every `everyMs` and once at start.
 */
export class FleetRecorder {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      redis: RedisClient;
      frontier: Frontier;
      fleet: FleetRepository;
      agentsKey: string;
      log: Logger;
    },
  ) {}

  async start(everyMs: number): Promise<void> {
    await this.recordOnce();
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.recordOnce()
        .catch((err: unknown) => this.deps.log.warn({ err }, 'could not record the fleet'))
        .finally(() => (this.running = null));
    }, everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  async recordOnce(now = new Date()): Promise<void> {
    const { redis, frontier, fleet, agentsKey } = this.deps;
    const beats = await readHeartbeats(redis, agentsKey);
    await fleet.recordAgents([...beats].map(([id, ms]) => ({ id, at: new Date(ms) })));
    const nodes = await Promise.all(
      Array.from({ length: frontier.shards }, (_, s) => nodeOf(redis, frontier.keys.ready(s))),
    );
    await fleet.recordShardMap(
      nodes.flatMap((node, shard) => (node === null ? [] : [{ shard, node }])),
      now,
    );
  }
}
