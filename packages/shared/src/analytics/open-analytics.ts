import { z } from 'zod';
import { AnalyticsError } from './analytics-errors';
import { openChdbBackend } from './chdb-backend';
import type { ClickHouseBackend } from './clickhouse-backend';
import { encodeFetchRows, type FetchRow } from './fetch-row';
import { readFetchStats, type FetchStats } from './fetch-stats';
import { applyMigrations, loadMigrations } from './migrate';
import { openServerBackend } from './server-backend';

/** Telemetry and index tables in ClickHouse (embedded chdb, or a server when `url` is set). */
export interface AnalyticsStore {
  /** Applies pending numbered migrations; a no-op when up to date. */
  migrate(): Promise<void>;
  /**
   * Inserts a batch of fetch rows in one INSERT (JSONEachRow). Rows are validated first, all or
   * nothing. Replaying a batch is safe: duplicates (same url_fp, fetched_at) collapse.
   * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the row index and field.
   */
  insertFetches(rows: FetchRow[]): Promise<void>;
  /** Whole-table fetch totals, replays counted once. */
  fetchStats(): Promise<FetchStats>;
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
    async insertFetches(rows) {
      if (rows.length === 0) return;
      const db = live();
      await db.insertJsonEachRow('fetches', await encodeFetchRows(rows));
    },
    async fetchStats() {
      return readFetchStats(live());
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
  const parsed = optionsSchema.safeParse(opts);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AnalyticsError(
      'ANALYTICS_BAD_OPTIONS',
      `openAnalytics option ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const { path, url, database } = parsed.data;
  const db = url ? await openServerBackend(url, database) : await openChdbBackend(path, database);
  return storeOver(db);
}
