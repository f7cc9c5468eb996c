import type { ClickHouseBackend } from './clickhouse-backend';
import { parseClickhouseDateTime } from './encode-rows';

/** A CDX row (`captures`): where the WARC record of one fetch is, and what it holds. */
export interface CaptureRow {
  url_fp: string;
  url: string;
  fetched_at: Date;
  status: number;
  content_type: string;
  /** `response`, or `revisit` for an exact duplicate of an earlier capture ('' before migration 003). */
  record_type: string;
  record_id: string;
  /** WARC-Payload-Digest (`sha1:` base32). */
  payload_digest: string;
  /** SHA-256 hex of the body. */
  content_hash: string;
  /** Object key of the WARC file, and the record's byte offset and length in it. */
  warc_key: string;
  warc_offset: number;
  warc_length: number;
  /** For a revisit: the URL whose capture it refers to, or ''. */
  duplicate_of: string;
}

const READ_CAPTURES_SQL = `
SELECT url_fp, url, fetched_at, status, content_type, record_type, record_id,
       payload_digest, content_hash, warc_key, warc_offset, warc_length, duplicate_of
FROM captures FINAL
WHERE url_fp = {fp:String}
ORDER BY fetched_at DESC
LIMIT {limit:UInt32}
SETTINGS do_not_merge_across_partitions_select_final = 1`;

type Raw = Record<keyof CaptureRow, string | number>;

/** The captures of a URL, newest first (at most `limit`, default 100). */
export async function readCaptures(
  db: ClickHouseBackend,
  urlFp: string,
  limit = 100,
): Promise<CaptureRow[]> {
  const rows = await db.queryRows<Raw>(READ_CAPTURES_SQL, { fp: urlFp, limit });
  return rows.map((r) => ({
    url_fp: String(r.url_fp),
    url: String(r.url),
    fetched_at: parseClickhouseDateTime(String(r.fetched_at)),
    status: Number(r.status),
    content_type: String(r.content_type),
    record_type: String(r.record_type),
    record_id: String(r.record_id),
    payload_digest: String(r.payload_digest),
    content_hash: String(r.content_hash),
    warc_key: String(r.warc_key),
    warc_offset: Number(r.warc_offset),
    warc_length: Number(r.warc_length),
    duplicate_of: String(r.duplicate_of),
  }));
}
