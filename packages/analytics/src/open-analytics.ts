import { z } from 'zod';
import { parseOrThrow } from '@crawler/domain/errors';
import { AnalyticsError } from './analytics-errors';
import { openChdbBackend } from './chdb-backend';
import type { ClickHouseBackend } from './clickhouse-backend';
import { readCaptures, type CaptureRow } from './capture-row';
import { encodeFetchRows, FETCH_COLUMNS, type FetchRow } from './fetch-row';
import { readFetchStats, type FetchStats } from './fetch-stats';
import { applyMigrations, loadMigrations } from './migrate';
import { encodePageRows, PAGE_COLUMNS, readPages, type PageRow } from './page-row';
import { openServerBackend } from './server-backend';
import { readUrls, type UrlState } from './url-state';

/** Telemetry and index tables in ClickHouse (embedded chdb, or a server when `url` is set). */
export interface AnalyticsStore {
  /** Applies pending numbered migrations; a no-op when up to date. */
  migrate(): Promise<void>;
  /**
   * Inserts a batch of fetch rows in one INSERT (JSONCompactEachRow). Rows are validated first,
   * all or nothing, unless `validated`: the caller checked every row against fetchRowSchema or a
   * stricter schema (the telemetry message's is one) with every field set, and the second check
   * is skipped. Replaying a batch is safe: duplicates (same url_fp, fetched_at) collapse.
   * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the row index and field.
   */
  insertFetches(rows: FetchRow[], opts?: { validated?: boolean }): Promise<void>;
  /** Whole-table fetch totals, replays counted once. */
  fetchStats(): Promise<FetchStats>;
  /**
   * Inserts a batch of parsed pages (from the feed) in one INSERT, validated first, all or
   * nothing. Replaying a batch is safe: rows with the same (url_fp, fetched_at) collapse.
   * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the row index and field.
   */
  insertPages(rows: PageRow[]): Promise<void>;
  /**
   * The latest state of each known URL among `urlFps` (`urls`) with its change history counted
   * from `fetches`, ordered by url_fp.
   */
  getUrls(urlFps: readonly string[]): Promise<UrlState[]>;
  /** A URL's captures (CDX rows: WARC file, offset, length, digest), newest first. */
  listCaptures(urlFp: string, limit?: number): Promise<CaptureRow[]>;
  /** A URL's parsed pages, newest first. */
  listPages(urlFp: string, limit?: number): Promise<PageRow[]>;
  /**
   * Runs a SELECT with `{name:Type}` placeholders bound server-side from `params` (values never
   * enter the SQL text). Dates bind as instants (Unix seconds.ms). 64-bit integers come back as
   * strings. Table names resolve in the store's database.
   */
  queryJson<T>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  /** Closes the connection (for embedded chdb, waits until the engine lets go of the folder). */
  close(): Promise<void>;
}

const optionsSchema = z.strictObject({
  /** chdb data folder; default `./data/clickhouse`. Ignored when `url` is set. */
  path: z.string().min(1).default('./data/clickhouse'),
  /** ClickHouse server URL, e.g. `http://user:pass@clickhouse:8123`. Empty = embedded. */
  url: z.string().optional(),
  /** Database; default `crawler`. */
  database: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'letters, digits and "_"')
    .default('crawler'),
});

/** Options of {@link openAnalytics}. */
export type AnalyticsOptions = z.input<typeof optionsSchema>;

function storeOver(db: ClickHouseBackend): AnalyticsStore {
  let closed = false;
  const live = (): ClickHouseBackend => {
    if (closed) throw new AnalyticsError('ANALYTICS_CLOSED', 'analytics store is closed');
    return db;
  };
  return {
    async migrate() {
      await applyMigrations(live(), await loadMigrations());
    },
    async insertFetches(rows, opts = {}) {
      if (rows.length === 0) return;
      const db = live();
      await db.insertJsonCompact('fetches', FETCH_COLUMNS, await encodeFetchRows(rows, opts));
    },
    async fetchStats() {
      return readFetchStats(live());
    },
    async insertPages(rows) {
      if (rows.length === 0) return;
      const db = live();
      await db.insertJsonCompact('pages', PAGE_COLUMNS, await encodePageRows(rows));
    },
    async getUrls(urlFps) {
      return readUrls(live(), urlFps);
    },
    async listCaptures(urlFp, limit) {
      return readCaptures(live(), urlFp, limit);
    },
    async listPages(urlFp, limit) {
      return readPages(live(), urlFp, limit);
    },
    async queryJson<T>(sql: string, params: Record<string, unknown> = {}) {
      return live().queryRows<T>(sql, params);
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
}

/**
 * Opens the analytics store: embedded ClickHouse (chdb) on `path` by default, or the server at
 * `url`. Creates the database if missing; call `migrate()` before first use.
 */
export async function openAnalytics(opts: AnalyticsOptions = {}): Promise<AnalyticsStore> {
  const { path, url, database } = parseOrThrow(
    optionsSchema,
    opts,
    (problem) => new AnalyticsError('ANALYTICS_BAD_OPTIONS', `openAnalytics option ${problem}`),
  );
  const db = url ? await openServerBackend(url, database) : await openChdbBackend(path, database);
  return storeOver(db);
}
