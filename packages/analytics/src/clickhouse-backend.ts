import { queryFailed } from './analytics-errors';

/**
 * The few operations the analytics store needs from ClickHouse, implemented once over embedded
 * chdb and once over a server. Both run the same SQL; table names are unqualified and resolve
 * in the store's database.
 */
export interface ClickHouseBackend {
  /** Runs a statement that returns nothing of interest (DDL). */
  exec(sql: string): Promise<void>;
  /**
   * Runs a SELECT with `{name:Type}` parameters bound server-side; returns its rows.
   * 64-bit integers come back as strings on both backends (ClickHouse's JSON default).
   */
  queryRows<T>(sql: string, params: Record<string, unknown>): Promise<T[]>;
  /** Inserts a JSONEachRow payload (one JSON object per line) in one INSERT. */
  insertJsonEachRow(table: string, payload: Buffer): Promise<void>;
  /**
   * Inserts a JSONCompactEachRow payload (one JSON array of values per line, in the order of
   * `columns`) in one INSERT: no key per value, so cheaper to encode and to parse.
   */
  insertJsonCompact(table: string, columns: readonly string[], payload: Buffer): Promise<void>;
  close(): Promise<void>;
}

/**
 * Dates are bound as Unix seconds with milliseconds (`1764504000.123`), the time-zone-agnostic
 * form `@clickhouse/client` uses, so a Date parameter means the same instant on both backends.
 */
export function normalizeParams(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    out[name] = value instanceof Date ? (value.getTime() / 1000).toFixed(3) : value;
  }
  return out;
}

/**
 * Settings of every batch insert. optimize_on_insert=0: ReplacingMergeTree would otherwise
 * collapse duplicates inside each inserted block (and again in every table a view feeds); reads
 * use FINAL anyway, so that work buys nothing at insert time.
 */
export const INSERT_SETTINGS = { optimize_on_insert: 0 } as const;

/**
 * `engine` with each failure of a statement wrapped as ANALYTICS_QUERY_FAILED saying what failed
 * (the engine's error its cause): both backends are built on it, so they fail alike.
 */
export function failingAsQueryFailed(engine: ClickHouseBackend): ClickHouseBackend {
  return {
    exec: (sql) => orQueryFailed('statement failed', () => engine.exec(sql)),
    queryRows: <T>(sql: string, params: Record<string, unknown>) =>
      orQueryFailed('query failed', () => engine.queryRows<T>(sql, params)),
    insertJsonEachRow: (table, payload) =>
      orQueryFailed(`insert into ${table} failed`, () => engine.insertJsonEachRow(table, payload)),
    insertJsonCompact: (table, columns, payload) =>
      orQueryFailed(`insert into ${table} failed`, () =>
        engine.insertJsonCompact(table, columns, payload),
      ),
    close: () => engine.close(),
  };
}

async function orQueryFailed<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw queryFailed(what, err);
  }
}
