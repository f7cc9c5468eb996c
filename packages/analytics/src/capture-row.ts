import type { z } from 'zod';
import type { ClickHouseBackend } from './clickhouse-backend';
import { rowDecoder } from './decode-rows';
import { fetchRowSchema } from './fetch-row';

/**
 * A CDX row (`captures`, fed from `fetches` by a view): where the WARC record of one fetch is
 * (`warc_key`, `warc_offset`, `warc_length`) and what it holds (`record_type`: `response`, or
 * `revisit` for an exact duplicate of the capture `duplicate_of` names; '' before migration
 * 003). The fetch row's fields, in the table's order.
 */
export const captureRowSchema = fetchRowSchema.pick({
  url_fp: true,
  url: true,
  fetched_at: true,
  status: true,
  content_type: true,
  record_type: true,
  record_id: true,
  payload_digest: true,
  content_hash: true,
  warc_key: true,
  warc_offset: true,
  warc_length: true,
  duplicate_of: true,
});
export type CaptureRow = z.output<typeof captureRowSchema>;

/** Columns of `captures`, in the table's order. */
export const CAPTURE_COLUMNS = Object.keys(captureRowSchema.shape);

const READ_CAPTURES_SQL = `
SELECT ${CAPTURE_COLUMNS.join(', ')}
FROM captures FINAL
WHERE url_fp = {fp:String}
ORDER BY fetched_at DESC
LIMIT {limit:UInt32}
SETTINGS do_not_merge_across_partitions_select_final = 1`;

const toCaptureRow = rowDecoder(captureRowSchema);

/** The captures of a URL, newest first (at most `limit`, default 100). */
export async function readCaptures(
  db: ClickHouseBackend,
  urlFp: string,
  limit = 100,
): Promise<CaptureRow[]> {
  const rows = await db.queryRows<Record<string, unknown>>(READ_CAPTURES_SQL, { fp: urlFp, limit });
  return rows.map(toCaptureRow);
}
