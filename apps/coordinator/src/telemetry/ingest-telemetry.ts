import type { z } from 'zod';
import {
  AnalyticsError,
  compileFastCheck,
  fetchRowSchema,
  type AnalyticsStore,
  type FetchRow,
} from '@crawler/analytics';
import {
  telemetryRowSchema,
  telemetryStreamKey,
  type TelemetryRowInput,
} from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';
import type { Logger } from '@crawler/adapters/log';
import { StreamGroupReader, type StreamEntry } from '@crawler/adapters/streams';
import { BatchIngest } from '../ingest/batch-ingest';
import { IngestLoop } from '../ingest/ingest-loop';

const GROUP = 'ingest';
/**
 * A batch: up to 100 stream entries (agents write up to 500 rows an entry, so up to ~50k rows an
 * INSERT), collected for up to a second once the first came. ClickHouse wants big inserts: a
 * part per table (and per view) per INSERT, so a stream of small ones costs several times the
 * CPU in writes and merges.
 */
const ENTRIES_PER_BATCH = 100;
const LINGER_MS = 1000;
/**
 * telemetryRowSchema as plain checks: the same answer as zod for about a tenth of the CPU (zod
 * was the ingest's largest JavaScript cost); rows it refuses go through zod, for the error.
 */
const isTelemetryRow = compileFastCheck(telemetryRowSchema);

/**
 * Drains the agents' telemetry stream into ClickHouse in batches, at least once: entries are
 * acknowledged (and deleted) only after their rows are inserted, and a restarted coordinator
 * first re-reads what it had read but not acknowledged; entries left by a coordinator that is
 * gone are taken over after a minute. Inserts are idempotent by (url_fp, fetched_at), so a
 * replay does no harm. Rows that fail validation are logged and dropped, never block the rest.
 */
export class TelemetryIngest extends BatchIngest<StreamEntry[]> {
  private readonly key: string;
  private readonly reader: StreamGroupReader;
  protected readonly loop: IngestLoop<StreamEntry[]>;

  constructor(
    /** A connection of its own: XREADGROUP BLOCK would stall a shared one. */
    private readonly redis: RedisClient,
    private readonly analytics: AnalyticsStore,
    prefix: string,
    consumer: string,
    protected readonly log: Logger,
    /** Runs after each batch is stored, before it is acknowledged (a failure retries the batch). */
    private readonly onStored: (rows: FetchRow[]) => Promise<void> = async () => undefined,
  ) {
    super();
    this.key = telemetryStreamKey(prefix);
    this.reader = new StreamGroupReader(redis, { streams: [this.key], group: GROUP, consumer });
    this.loop = new IngestLoop(
      'telemetry ingest',
      {
        open: () => this.reader.ensureGroups(),
        read: async (blockMs) => {
          const batch = await this.reader.read({
            count: ENTRIES_PER_BATCH,
            blockMs,
            lingerMs: LINGER_MS,
          });
          return { size: batch.length, batch };
        },
        ack: async (entries) => {
          const ids = entries.map((e) => e.id);
          await this.reader.ack(entries);
          // Telemetry has a single reader: once stored, an entry is of no further use.
          await this.redis.xdel(this.key, ...ids);
        },
        rewind: () => this.reader.rewind(),
        caughtUp: () => this.reader.caughtUp(),
      },
      (entries) => this.store(entries),
      log,
    );
  }

  private async store(entries: StreamEntry[]): Promise<void> {
    const rows: FetchRow[] = [];
    for (const { id, fields } of entries) {
      const at = fields.indexOf('rows');
      for (const candidate of safeJsonArray(at >= 0 ? (fields[at + 1] ?? '[]') : '[]')) {
        const row = checkTelemetryRow(candidate);
        if (!Array.isArray(row)) rows.push(row);
        else {
          this.rejected++;
          this.log.warn({ id, issues: row.slice(0, 3) }, 'telemetry row rejected');
        }
      }
    }
    // Read after the await: batches are stored concurrently.
    const inserted = await this.insert(rows);
    await this.onStored(rows);
    this.ingested += inserted;
  }

  /**
   * Inserts the rows. The message schema is at least as strict as the table's, so they go in
   * without a second check; should the insert fail anyway, they are checked against the table's
   * schema and the rows it refuses are dropped, rather than retrying the batch forever.
   */
  private async insert(rows: FetchRow[]): Promise<number> {
    try {
      await this.analytics.insertFetches(rows, { validated: true });
      return rows.length;
    } catch (first) {
      if (!(first instanceof AnalyticsError)) throw first;
    }
    return this.insertDroppingRefused(
      rows,
      (r) => this.analytics.insertFetches(r),
      fetchRowSchema,
      'telemetry rows rejected',
    );
  }
}

/**
 * A telemetry row as the fetch row it is stored as (the message, its time as a Date), or the
 * schema's issues. A row that passes the compiled check goes on as it came (fields with a
 * default may be absent: the insert fills them, as zod would have); others go through zod.
 */
export function checkTelemetryRow(candidate: unknown): FetchRow | z.core.$ZodIssue[] {
  let row: TelemetryRowInput;
  if (isTelemetryRow?.(candidate)) row = candidate as TelemetryRowInput;
  else {
    const parsed = telemetryRowSchema.safeParse(candidate);
    if (!parsed.success) return parsed.error.issues;
    row = parsed.data;
  }
  return { ...row, fetched_at: new Date(row.fetched_at) };
}

function safeJsonArray(raw: string): unknown[] {
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}
