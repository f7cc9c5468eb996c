import type { ClickHouseBackend } from './clickhouse-backend';
import { parseClickhouseDateTime } from './encode-rows';

/**
 * The latest state of a URL (`urls`, its newest fetch attempt) with what its history in
 * `fetches` says about how often it changes: what a re-crawl scheduler needs.
 */
export interface UrlState {
  url_fp: string;
  url: string;
  host: string;
  /** The newest attempt. */
  fetched_at: Date;
  status: number;
  error_code: string;
  content_type: string;
  content_hash: string;
  simhash: string;
  etag: string;
  last_modified: string;
  change: '' | 'new' | 'changed' | 'unchanged';
  redirect_to: string;
  record_type: '' | 'response' | 'revisit';
  record_id: string;
  payload_digest: string;
  warc_key: string;
  warc_offset: number;
  warc_length: number;
  /** Fetch attempts so far (not counting URLs robots.txt refused). */
  fetches: number;
  /** Fetches that found the content changed since the capture before ('new' excluded). */
  times_changed: number;
  /** Fetches that found it unchanged (a 304, or the same body). */
  times_unchanged: number;
  first_fetched_at: Date;
  /** When the content was first seen or last changed; null if never captured. */
  last_changed_at: Date | null;
}

const COLUMNS =
  'url_fp, url, host, fetched_at, status, error_code, content_type, content_hash, simhash, etag, ' +
  'last_modified, change, redirect_to, record_type, record_id, ' +
  'payload_digest, warc_key, warc_offset, warc_length';

/*
 * The history is counted from `fetches` itself rather than kept by a view at insert time (a
 * per-URL aggregate view cost ~40% of the insert): `fetches` is sorted by host first, and
 * `urls` says each URL's host, so only those hosts' rows are read. Counting distinct fetch
 * times makes a replayed fetch count once without FINAL.
 */
const READ_URLS_SQL = `
WITH {fps:Array(String)} AS fps
SELECT ${COLUMNS}, fetches, times_changed, times_unchanged, first_fetched_at, last_changed_at
FROM (SELECT ${COLUMNS} FROM urls FINAL WHERE url_fp IN fps) AS u
LEFT JOIN (
  SELECT url_fp,
         uniqExactIf(fetched_at, error_code != 'robots_denied') AS fetches,
         uniqExactIf(fetched_at, change = 'changed') AS times_changed,
         uniqExactIf(fetched_at, change = 'unchanged') AS times_unchanged,
         min(fetched_at) AS first_fetched_at,
         maxIf(fetched_at, change IN ('new', 'changed')) AS last_changed_at
  FROM fetches
  WHERE host IN (SELECT host FROM urls WHERE url_fp IN fps) AND url_fp IN fps
  GROUP BY url_fp
) AS c USING (url_fp)
ORDER BY url_fp`;

type Raw = Record<keyof UrlState, string | number>;

/** The state of each known URL among `urlFps` (unknown ones are left out), ordered by url_fp. */
export async function readUrls(
  db: ClickHouseBackend,
  urlFps: readonly string[],
): Promise<UrlState[]> {
  if (urlFps.length === 0) return [];
  const rows = await db.queryRows<Raw>(READ_URLS_SQL, { fps: [...urlFps] });
  return rows.map((r) => {
    const lastChanged = parseClickhouseDateTime(String(r.last_changed_at));
    return {
      url_fp: String(r.url_fp),
      url: String(r.url),
      host: String(r.host),
      fetched_at: parseClickhouseDateTime(String(r.fetched_at)),
      status: Number(r.status),
      error_code: String(r.error_code),
      content_type: String(r.content_type),
      content_hash: String(r.content_hash),
      simhash: String(r.simhash),
      etag: String(r.etag),
      last_modified: String(r.last_modified),
      change: String(r.change) as UrlState['change'],
      redirect_to: String(r.redirect_to),
      record_type: String(r.record_type) as UrlState['record_type'],
      record_id: String(r.record_id),
      payload_digest: String(r.payload_digest),
      warc_key: String(r.warc_key),
      warc_offset: Number(r.warc_offset),
      warc_length: Number(r.warc_length),
      fetches: Number(r.fetches),
      times_changed: Number(r.times_changed),
      times_unchanged: Number(r.times_unchanged),
      first_fetched_at: parseClickhouseDateTime(String(r.first_fetched_at)),
      last_changed_at: lastChanged.getTime() > 0 ? lastChanged : null,
    };
  });
}
