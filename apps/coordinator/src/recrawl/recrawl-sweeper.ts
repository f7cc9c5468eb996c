import { Queue, Worker } from 'bullmq';
import type { Frontier } from '@crawler/frontier';
import type { Logger } from '@crawler/adapters/log';
import { bullmqConnection, closeBullmqConnection, type RedisClient } from '@crawler/adapters/redis';
import { bullPrefix } from '../keys';
import type { RecrawlStore } from './recrawl-store';

export interface SweepResult {
  enqueued: number;
  due: number;
}

/** Where BullMQ finds Redis: `REDIS_URL`, and whether it names a Redis Cluster's node. */
export interface SweepRedis {
  url: string;
  cluster: boolean;
}

/**
 * Moves due URLs into the frontier as re-crawls, shard by shard, at most `max` per sweep; the
 * frontier's re-crawl share then paces them against discovery. Runs as a BullMQ job scheduler
 * (one job every `everyMs`, whichever coordinator's worker takes it), so several coordinators
 * never sweep at once and a failed sweep is retried.
 */
export class RecrawlSweeper {
  private queue: Queue | null = null;
  private worker: Worker | null = null;
  private connection: RedisClient | null = null;
  private everyMs = 0;

  constructor(
    private readonly store: RecrawlStore,
    private readonly frontier: Frontier,
    private readonly max: number,
    private readonly log: Logger,
  ) {}

  /** One sweep, now. */
  async sweep(now = Date.now()): Promise<SweepResult> {
    const perShard = Math.max(1, Math.ceil(this.max / this.frontier.shards));
    let enqueued = 0;
    let due = 0;
    for (let s = 0; s < this.frontier.shards && due < this.max; s++) {
      const entries = await this.store.takeDue(s, Math.min(perShard, this.max - due), now);
      due += entries.length;
      if (entries.length > 0) enqueued += (await this.frontier.enqueue(entries)).accepted;
    }
    if (due > 0) this.log.info({ due, enqueued }, 're-crawl sweep');
    return { enqueued, due };
  }

  /**
   * Schedules the sweep every `everyMs` on BullMQ and works it. BullMQ's keys share one hash tag
   * (`{prefix:bull}`), and on a Redis Cluster its connection is a cluster client, so they live in
   * one slot whichever node owns it (`bullmqConnection`). Its connections are named
   * `{prefix:bull}…` in `CLIENT LIST`.
   */
  async start(redis: SweepRedis, prefix: string, everyMs: number): Promise<void> {
    const name = bullPrefix(prefix);
    this.connection = bullmqConnection(redis.url, { cluster: redis.cluster, name });
    const opts = { connection: this.connection, prefix: name };
    this.queue = new Queue('recrawl', opts);
    this.queue.on('error', (err) => this.log.warn({ err }, 're-crawl queue error'));
    this.everyMs = everyMs;
    try {
      await this.reschedule();
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.worker = new Worker('recrawl', async () => this.sweep(), { ...opts, concurrency: 1 });
    this.worker.on('failed', (_job, err) => this.log.warn({ err }, 're-crawl sweep failed'));
    this.worker.on('error', (err) => this.log.warn({ err }, 're-crawl worker error'));
  }

  /** (Re)creates the job scheduler: it lives in Redis, so it is gone when Redis was emptied. */
  async reschedule(): Promise<void> {
    if (!this.queue || this.everyMs <= 0) return;
    await this.queue.upsertJobScheduler(
      'recrawl-sweep',
      { every: this.everyMs },
      { name: 'sweep' },
    );
  }

  /** Closes the worker (after its running sweep), the queue and their connection. */
  async stop(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
    if (this.connection) await closeBullmqConnection(this.connection);
    this.worker = null;
    this.queue = null;
    this.connection = null;
  }
}
