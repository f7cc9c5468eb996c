import type { z } from 'zod';
import type { ClickHouseBackend } from './clickhouse-backend';
import { rowDecoder } from './decode-rows';
import { parseClickhouseDateTime } from './encode-rows';
import { fetchRowSchema } from './fetch-row';

/**
 * A row of `urls` (fed from `fetches` by a view): the newest fetch attempt of a URL, its fetch
 * row's fields in the table's order.
 */
export const urlRowSchema = fetchRowSchema.pick({
  url_fp: true,
  url: true,
  host: true,
  fetched_at: true,
  status: true,
  error_code: true,
  content_type: true,
  content_hash: true,
  simhash: true,
  etag: true,
  last_modified: true,
  change: true,
  redirect_to: true,
  record_type: true,
  record_id: true,
  payload_digest: true,
  warc_key: true,
  warc_offset: true,
  warc_length: true,
});

/** Columns of `urls`, in the table's order. */
export const URL_COLUMNS = Object.keys(urlRowSchema.shape);

/**
 * The latest state of a URL (`urls`, its newest fetch attempt) with what its history in
 * `fetches` says about how often it changes: what a re-crawl scheduler needs.
 */
export type UrlState = z.output<typeof urlRowSchema> & {
  /** Fetch attempts so far (not counting URLs robots.txt refused). */
  fetches: number;
  /** Fetches that found the content changed since the capture before ('new' excluded). */
  times_changed: number;
  /** Fetches that found it unchanged (a 304, or the same body). */
  times_unchanged: number;
  first_fetched_at: Date;
  /** When the content was first seen or last changed; null if never captured. */
  last_changed_at: Date | null;
};

const COLUMNS = URL_COLUMNS.join(', ');

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

const toUrlRow = rowDecoder(urlRowSchema);

/** The state of each known URL among `urlFps` (unknown ones are left out), ordered by url_fp. */
export async function readUrls(
  db: ClickHouseBackend,
  urlFps: readonly string[],
): Promise<UrlState[]> {
  if (urlFps.length === 0) return [];
  const rows = await db.queryRows<Record<string, unknown>>(READ_URLS_SQL, { fps: [...urlFps] });
  return rows.map((r) => {
    const lastChanged = parseClickhouseDateTime(String(r.last_changed_at));
    return {
      ...toUrlRow(r),
      fetches: Number(r.fetches),
      times_changed: Number(r.times_changed),
      times_unchanged: Number(r.times_unchanged),
      first_fetched_at: parseClickhouseDateTime(String(r.first_fetched_at)),
      last_changed_at: lastChanged.getTime() > 0 ? lastChanged : null,
    };
  });
}
