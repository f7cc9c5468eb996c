import { mkdir } from 'node:fs/promises';
import { drainPending, Session } from 'chdb';
import { queryFailed as failed } from './analytics-errors';
import { INSERT_SETTINGS, normalizeParams, type ClickHouseBackend } from './clickhouse-backend';

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

  return {
    async exec(sql) {
      try {
        await session.queryAsync(sql);
      } catch (err) {
        throw failed('statement failed', err);
      }
    },
    async queryRows<T>(sql: string, params: Record<string, unknown>): Promise<T[]> {
      let text: string;
      try {
        const result = await session.queryBindAsync(sql, normalizeParams(params), {
          format: 'JSON',
        });
        text = result.text();
      } catch (err) {
        throw failed('query failed', err);
      }
      // A statement with no result set (DDL) answers with nothing at all.
      return text.trim() === '' ? [] : (JSON.parse(text) as { data: T[] }).data;
    },
    async insertJsonEachRow(table, payload) {
      try {
        await session.insert({ table, values: payload, format: 'JSONEachRow' });
      } catch (err) {
        throw failed(`insert into ${table} failed`, err);
      }
    },
    async insertJsonCompact(table, columns, payload) {
      try {
        await session.insert({
          table,
          values: payload,
          format: 'JSONCompactEachRow',
          columns,
          settings: INSERT_SETTINGS,
        });
      } catch (err) {
        throw failed(`insert into ${table} failed`, err);
      }
    },
    async close() {
      session.close();
      await drainPending();
    },
  };
}
