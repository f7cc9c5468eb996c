import { mkdir } from 'node:fs/promises';
import { drainPending, Session } from 'chdb';
import { queryFailed as failed } from './analytics-errors';
import {
  failingAsQueryFailed,
  INSERT_SETTINGS,
  normalizeParams,
  type ClickHouseBackend,
} from './clickhouse-backend';

/**
 * Embedded ClickHouse (chdb) on a local folder. libchdb binds one data folder per process, so
 * one process opens one embedded store (several stores on the same folder are fine).
 */
export async function openChdbBackend(path: string, database: string): Promise<ClickHouseBackend> {
  await mkdir(path, { recursive: true });
  // Quote 64-bit integers in JSON like a ClickHouse server does by default, so results have
  // the same shape on both backends.
  const session = new Session(path, {
    connectionArgs: ['--output_format_json_quote_64bit_integers=1'],
  });
  try {
    await session.queryAsync(`CREATE DATABASE IF NOT EXISTS ${database}`);
    await session.queryAsync(`USE ${database}`);
  } catch (err) {
    session.close();
    throw failed(`opening ${database} in ${path}`, err);
  }

  return failingAsQueryFailed({
    async exec(sql) {
      await session.queryAsync(sql);
    },
    async queryRows<T>(sql: string, params: Record<string, unknown>): Promise<T[]> {
      const result = await session.queryBindAsync(sql, normalizeParams(params), { format: 'JSON' });
      const text = result.text();
      // A statement with no result set (DDL) answers with nothing at all.
      return text.trim() === '' ? [] : (JSON.parse(text) as { data: T[] }).data;
    },
    async insertJsonEachRow(table, payload) {
      await session.insert({ table, values: payload, format: 'JSONEachRow' });
    },
    async insertJsonCompact(table, columns, payload) {
      await session.insert({
        table,
        values: payload,
        format: 'JSONCompactEachRow',
        columns,
        settings: INSERT_SETTINGS,
      });
    },
    async close() {
      session.close();
      await drainPending();
    },
  });
}
