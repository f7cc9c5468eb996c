import type { z } from 'zod';
import type { ClickHouseBackend } from './clickhouse-backend';
import { rowDecoder } from './decode-rows';

/** Reads the rows of one URL, newest first: at most `limit` (the reader's default when not given). */
export type UrlRowsReader<Row> = (
  db: ClickHouseBackend,
  urlFp: string,
  limit?: number,
) => Promise<Row[]>;

/**
 * The reader of a table keyed by (url_fp, fetched_at) (`captures`, `pages`): the rows of one URL,
 * newest first, with the fields of `schema` (its columns, in its order) decoded by
 * {@link rowDecoder}. Read with FINAL, so a replayed insert shows once.
 */
export function newestRowsOfUrl<S extends z.ZodRawShape>(
  table: string,
  schema: z.ZodObject<S>,
  defaultLimit: number,
): UrlRowsReader<z.output<z.ZodObject<S>>> {
  const sql = `
SELECT ${Object.keys(schema.shape).join(', ')}
FROM ${table} FINAL
WHERE url_fp = {fp:String}
ORDER BY fetched_at DESC
LIMIT {limit:UInt32}
SETTINGS do_not_merge_across_partitions_select_final = 1`;
  const decode = rowDecoder(schema);
  return async (db, urlFp, limit = defaultLimit) => {
    const rows = await db.queryRows<Record<string, unknown>>(sql, { fp: urlFp, limit });
    return rows.map(decode);
  };
}
