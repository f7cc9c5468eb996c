import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { queryFailed as failed } from './analytics-errors';
import {
  failingAsQueryFailed,
  INSERT_SETTINGS,
  normalizeParams,
  type ClickHouseBackend,
} from './clickhouse-backend';

/** Creates the database through a client that does not select it (it may not exist yet). */
async function ensureDatabase(url: string, database: string): Promise<void> {
  const bootstrap = createClient({ url, database: 'default' });
  try {
    await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } catch (err) {
    throw failed(`creating database ${database}`, err);
  } finally {
    await bootstrap.close();
  }
}

/** A ClickHouse server through `@clickhouse/client` (HTTP). `url` may carry credentials. */
export async function openServerBackend(url: string, database: string): Promise<ClickHouseBackend> {
  await ensureDatabase(url, database);
  const client: ClickHouseClient = createClient({ url, database });

  return failingAsQueryFailed({
    async exec(sql) {
      await client.command({ query: sql });
    },
    async queryRows<T>(sql: string, params: Record<string, unknown>): Promise<T[]> {
      const result = await client.query({
        query: sql,
        query_params: normalizeParams(params),
        format: 'JSONEachRow',
      });
      return await result.json<T>();
    },
    async insertJsonEachRow(table, payload) {
      // A stream is sent as-is: the payload is already JSONEachRow.
      await client.insert({ table, values: Readable.from([payload]), format: 'JSONEachRow' });
    },
    async insertJsonCompact(table, columns, payload) {
      await client.insert({
        table,
        values: Readable.from([payload]),
        format: 'JSONCompactEachRow',
        columns: [...columns] as [string, ...string[]],
        clickhouse_settings: INSERT_SETTINGS,
      });
    },
    async close() {
      await client.close();
    },
  });
}
