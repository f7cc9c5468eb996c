import { AnalyticsError } from '@crawler/analytics';
import type { Logger } from '@crawler/adapters/log';
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
  protected abstract readonly log: Logger;

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

  /**
   * Inserts `rows` with `insert`; should the table refuse them (ANALYTICS_BAD_ROW: a message
   * schema let a row through that the table's does not), the rows `schema` refuses are dropped,
   * counted as rejected and logged as `what`, and the rest inserted. Returns the rows stored.
   */
  protected async insertDroppingRefused<R>(
    rows: R[],
    insert: (rows: R[]) => Promise<void>,
    schema: { safeParse(row: unknown): { success: boolean } },
    what: string,
  ): Promise<number> {
    try {
      await insert(rows);
      return rows.length;
    } catch (err) {
      if (!(err instanceof AnalyticsError) || err.code !== 'ANALYTICS_BAD_ROW') throw err;
      const good = rows.filter((row) => schema.safeParse(row).success);
      this.rejected += rows.length - good.length;
      this.log.warn({ dropped: rows.length - good.length, err }, what);
      await insert(good);
      return good.length;
    }
  }
}
