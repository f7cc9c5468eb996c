import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@crawler/adapters/log';
import { CrawlerError } from '@crawler/domain/errors';

/** An ingest that has not read and stored everything written within the time given. */
export class IngestBehindError extends CrawlerError {
  readonly code = 'INGEST_BEHIND';
  /** Its store (ClickHouse) is slow or down: wait, then ask again. */
  readonly retry = 'backoff';
}

/** What an ingest reads: a Redis consumer group over one or more streams. */
export interface IngestSource<B> {
  /** Creates the group where missing. */
  open(): Promise<void>;
  /** The next batch (this consumer's unacknowledged entries first); waits up to `blockMs`. */
  read(blockMs: number): Promise<{ size: number; batch: B }>;
  /** Acknowledges a batch once it is stored. */
  ack(batch: B): Promise<void>;
  /** After a failed batch: the next read starts again with the unacknowledged entries. */
  rewind(): void;
  /** True when every entry so far has been read and acknowledged. */
  caughtUp(): Promise<boolean>;
}

/**
 * The loop shared by the coordinator's ingests (telemetry, pages): read a batch, store it,
 * acknowledge it, at least once. A batch that fails is not acknowledged; after a pause it is read
 * again (and, should the process die, re-read by its successor), so stores must be idempotent.
 * Up to `depth` batches (default 2) are in flight: the next batch is read and encoded on the
 * event loop while ClickHouse inserts the previous one on its own threads.
 */
export class IngestLoop<B> {
  private running = false;
  private loop: Promise<void> | null = null;

  constructor(
    /** Names the ingest in logs and errors. */
    private readonly name: string,
    private readonly source: IngestSource<B>,
    /** Stores a batch; throws to have it retried. */
    private readonly store: (batch: B) => Promise<void>,
    private readonly log: Logger,
    private readonly opts: { blockMs?: number; retryMs?: number; depth?: number } = {},
  ) {}

  async start(): Promise<void> {
    await this.source.open();
    this.running = true;
    this.loop = this.run();
  }

  /** Stops after the batch in hand (waits at most one BLOCK, default 500 ms, for the read). */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    this.loop = null;
  }

  /** Waits until every entry written so far is stored and acknowledged. */
  async settle(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!(await this.source.caughtUp())) {
      if (Date.now() > until)
        throw new IngestBehindError(`${this.name} not drained after ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  /** Reads and stores until nothing is left (with the background loop stopped); entries read. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.step(0);
      total += n;
      if (n === 0) return total;
    }
  }

  private async run(): Promise<void> {
    const depth = Math.max(1, this.opts.depth ?? 2);
    const inFlight = new Set<Promise<void>>();
    let failure: { err: unknown } | null = null;
    while (this.running) {
      try {
        const { size, batch } = await this.source.read(this.opts.blockMs ?? 500);
        if (size > 0) {
          const done: Promise<void> = this.store(batch)
            .then(() => this.source.ack(batch))
            .catch((err: unknown) => void (failure ??= { err }))
            .finally(() => inFlight.delete(done));
          inFlight.add(done);
          if (inFlight.size >= depth) await Promise.race(inFlight);
        }
      } catch (err) {
        failure ??= { err };
      }
      if (failure) {
        // Let the other batches finish, then read the unacknowledged ones again after a pause.
        await Promise.all(inFlight);
        this.log.error({ err: failure.err }, `${this.name} failed; retrying`);
        failure = null;
        this.source.rewind();
        await sleep(this.opts.retryMs ?? 1000);
        // The consumer group may be gone with the rest of an emptied Redis (NOGROUP): create it
        // again where missing, or this ingest would fail for good while agents keep writing.
        await this.source.open().catch(() => undefined);
      }
    }
    await Promise.all(inFlight);
  }

  private async step(blockMs: number): Promise<number> {
    const { size, batch } = await this.source.read(blockMs);
    if (size === 0) return 0;
    await this.store(batch);
    await this.source.ack(batch);
    return size;
  }
}
