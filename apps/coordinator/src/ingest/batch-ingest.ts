import type { IngestLoop } from './ingest-loop';

/**
 * What every ingest exposes (telemetry into `fetches`, the feed into `pages`): the lifecycle of
 * its IngestLoop and its counters. Subclasses build the loop: how to read, store and acknowledge.
 */
export abstract class BatchIngest<B> {
  /** Rows stored so far. */
  ingested = 0;
  /** Rows refused (schema or table) so far: logged, acknowledged, never retried. */
  rejected = 0;
  protected abstract readonly loop: IngestLoop<B>;

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Waits until everything published so far is ingested (or rejected) and acknowledged. */
  settle(timeoutMs = 30_000): Promise<void> {
    return this.loop.settle(timeoutMs);
  }

  /** Reads and ingests until nothing is left (when the background loop is stopped). */
  drain(): Promise<number> {
    return this.loop.drain();
  }
}
