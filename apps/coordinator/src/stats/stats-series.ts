import type { AnalyticsStore } from '@crawler/shared/analytics';
import { SERIES_WINDOWS, statsSeriesInput, type StatsSeries } from './stats-series.types';

/*
 * One scan of the window for the buckets (error codes summed per bucket with sumMap), one for
 * near duplicates.
 * `fetches` is ordered by (host, fetched_at, url_fp) and partitioned by day, so a time filter
 * prunes partitions and granules by the min/max index of fetched_at. FINAL collapses replayed
 * rows (at-least-once ingest); duplicates never span partitions, so it merges within each.
 * Measured with 1M rows in the last 24 h (embedded chdb): see docs/ARCHITECTURE.md.
 */
const WINDOW = `fetched_at >= fromUnixTimestamp64Milli({from:Int64}) AND error_code != 'robots_denied'`;

const BUCKETS_SQL = `
SELECT toUnixTimestamp(toStartOfInterval(fetched_at, INTERVAL {b:UInt32} SECOND)) * 1000 AS t,
       count() AS pages, sum(bytes) AS bytes,
       countIf(status BETWEEN 200 AND 299) AS s2xx, countIf(status BETWEEN 300 AND 399) AS s3xx,
       countIf(status BETWEEN 400 AND 499) AS s4xx, countIf(status BETWEEN 500 AND 599) AS s5xx,
       countIf(status = 0 OR status >= 500) AS errors,
       quantilesTDigest(0.5, 0.95, 0.99)(fetch_ms) AS q,
       countIf(duplicate_of != '') AS duplicates,
       sumMapIf([error_code], [toUInt64(1)], error_code != '') AS codes
FROM fetches FINAL WHERE ${WINDOW}
GROUP BY t ORDER BY t
SETTINGS do_not_merge_across_partitions_select_final = 1`;

// SimHash equal, body different: a near duplicate at distance 0 (a cheap lower bound of the
// Hamming-distance ≤ 3 rule the agent applies).
const NEAR_SQL = `
SELECT toUnixTimestamp(toStartOfInterval(fetched_at, INTERVAL {b:UInt32} SECOND)) * 1000 AS t,
       count() AS n
FROM fetches
WHERE ${WINDOW} AND simhash != '' AND duplicate_of = '' AND simhash IN (
  SELECT simhash FROM fetches WHERE ${WINDOW} AND simhash != ''
  GROUP BY simhash HAVING min(content_hash) != max(content_hash))
GROUP BY t`;

type Num = number | string;

const MAX_ERROR_CODES = 20;
interface BucketRaw {
  t: Num;
  pages: Num;
  bytes: Num;
  s2xx: Num;
  s3xx: Num;
  s4xx: Num;
  s5xx: Num;
  errors: Num;
  q: number[];
  duplicates: Num;
  /** sumMap: [codes, counts]. */
  codes: [string[], Num[]];
}

/** `GET /v1/stats/series`: fetch throughput, status classes, latency and duplicates over time. */
export async function statsSeries(
  deps: { analytics: AnalyticsStore },
  raw: unknown,
  now = Date.now(),
): Promise<StatsSeries> {
  const { window } = statsSeriesInput.parse(raw);
  const [windowS, bucketS] = SERIES_WINDOWS[window];
  const firstBucket = Math.floor((now - windowS * 1000) / (bucketS * 1000)) * bucketS * 1000;
  const params = { from: firstBucket, b: bucketS };
  // One after the other: the embedded engine runs queries in one process, and two at once
  // were slower than both in turn (measured, bench-stats-series.ts).
  const rows = await deps.analytics.queryJson<BucketRaw>(BUCKETS_SQL, params);
  const near = await deps.analytics.queryJson<{ t: Num; n: Num }>(NEAR_SQL, params);
  const codes = new Map<string, number>();
  for (const r of rows)
    r.codes[0].forEach((c, i) => codes.set(c, (codes.get(c) ?? 0) + Number(r.codes[1][i])));
  const byT = new Map(rows.map((r) => [Number(r.t), r]));
  const nearByT = new Map(near.map((r) => [Number(r.t), Number(r.n)]));
  const buckets: StatsSeries['buckets'] = [];
  const mix = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, none: 0 };
  for (let t = firstBucket; t <= now; t += bucketS * 1000) {
    const r = byT.get(t);
    const b = {
      t,
      pages: Number(r?.pages ?? 0),
      bytes: Number(r?.bytes ?? 0),
      s2xx: Number(r?.s2xx ?? 0),
      s3xx: Number(r?.s3xx ?? 0),
      s4xx: Number(r?.s4xx ?? 0),
      s5xx: Number(r?.s5xx ?? 0),
      errors: Number(r?.errors ?? 0),
      p50_ms: Math.round(r?.q[0] ?? 0),
      p95_ms: Math.round(r?.q[1] ?? 0),
      p99_ms: Math.round(r?.q[2] ?? 0),
      duplicates: Number(r?.duplicates ?? 0),
      near_duplicates: nearByT.get(t) ?? 0,
    };
    mix['2xx'] += b.s2xx;
    mix['3xx'] += b.s3xx;
    mix['4xx'] += b.s4xx;
    mix['5xx'] += b.s5xx;
    mix.none += b.pages - b.s2xx - b.s3xx - b.s4xx - b.s5xx;
    buckets.push(b);
  }
  return {
    window,
    bucket_s: bucketS,
    buckets,
    error_codes: [...codes]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, MAX_ERROR_CODES)
      .map(([code, count]) => ({ code, count })),
    status_mix: (['2xx', '3xx', '4xx', '5xx', 'none'] as const).map((c) => ({
      status_class: c,
      count: mix[c],
    })),
  };
}
