import { PAGES_INGEST_GROUP, type ParsedPageMessage } from '@crawler/domain/messages';
import { pageRowSchema, type AnalyticsStore, type PageRow } from '@crawler/analytics';
import { FeedConsumer, type FeedBatch } from '@crawler/adapters/feed';
import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import { BatchIngest } from '../ingest/batch-ingest';
import { IngestLoop } from '../ingest/ingest-loop';
import { pageRowOf } from './page-row-of';

/** The consumer group of the ingest on every partition of the feed (always registered). */
export { PAGES_INGEST_GROUP };

export interface PagesIngestOptions {
  /** REDIS_PREFIX. */
  prefix: string;
  /** FEED_PARTITIONS. */
  partitions: number;
  /** This coordinator's name in the group. */
  consumer: string;
  /** Pages read per batch at most; default 500. */
  batchPages?: number;
  /** Once a page came, keep reading this long to fill the batch (bigger inserts); default 1,000 ms. */
  lingerMs?: number;
  /** Pages pending this long with a coordinator that is gone are taken over; default 60,000 ms. */
  claimIdleMs?: number;
}

/**
 * Ingests the `pages.parsed` feed into the ClickHouse `pages` table: consumer group `ingest` on
 * every partition, batch inserts, at least once (acknowledged after the insert; a replay
 * collapses on (url_fp, fetched_at)). Messages that fail the feed's schema, or the table's, are
 * counted, logged and acknowledged: they never block the stream. Unlike telemetry, entries are
 * not deleted: other groups read the same feed, and the agents' trim bounds it — never past what
 * this group has not stored (agents keep pages for it even while the coordinator is down).
 */
export class PagesIngest extends BatchIngest<FeedBatch> {
  private readonly consumer: FeedConsumer;
  protected readonly loop: IngestLoop<FeedBatch>;

  constructor(
    /** A connection of its own: reads BLOCK it. */
    redis: RedisClient,
    private readonly analytics: AnalyticsStore,
    opts: PagesIngestOptions,
    protected readonly log: Logger,
    /** Runs after each batch is stored, before it is acknowledged (a failure retries the batch). */
    private readonly onStored: (pages: ParsedPageMessage[]) => Promise<void> = async () =>
      undefined,
  ) {
    super();
    this.consumer = new FeedConsumer(redis, {
      prefix: opts.prefix,
      partitions: opts.partitions,
      group: PAGES_INGEST_GROUP,
      consumer: opts.consumer,
      fromStart: true,
      ...(opts.claimIdleMs !== undefined ? { claimIdleMs: opts.claimIdleMs } : {}),
    });
    const count = opts.batchPages ?? 500;
    const lingerMs = opts.lingerMs ?? 1000;
    this.loop = new IngestLoop(
      'pages ingest',
      {
        open: () => this.consumer.start(),
        read: async (blockMs) => {
          const batch = await this.consumer.read({ count, blockMs, lingerMs });
          return { size: batch.pages.length + batch.rejected.length, batch };
        },
        ack: (batch) => this.consumer.ack([...batch.pages, ...batch.rejected]),
        rewind: () => this.consumer.rewind(),
        caughtUp: () => this.consumer.caughtUp(),
      },
      (batch) => this.store(batch),
      log,
    );
  }

  private async store(batch: FeedBatch): Promise<void> {
    for (const r of batch.rejected) {
      this.log.warn({ partition: r.partition, id: r.id, reason: r.reason }, 'feed page rejected');
    }
    this.rejected += batch.rejected.length;
    // Read after the await: batches are stored concurrently.
    const inserted = await this.insert(batch.pages.map((p) => pageRowOf(p.page)));
    await this.onStored(batch.pages.map((p) => p.page));
    this.ingested += inserted;
  }

  /** Inserts the rows; rows the table refuses (the feed's schema let them through) are dropped. */
  private insert(rows: PageRow[]): Promise<number> {
    return this.insertDroppingRefused(
      rows,
      (r) => this.analytics.insertPages(r),
      pageRowSchema,
      'feed pages rejected',
    );
  }
}
