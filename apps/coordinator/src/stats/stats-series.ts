import type { AnalyticsStore } from '@crawler/analytics';
import { SERIES_WINDOWS, statsSeriesInput, type StatsSeries } from './stats-series.types';

/*
 * Three sources, the same answer:
 * - windows whose buckets are whole minutes (1 h, 6 h, 24 h) read the per-minute rollups of
 *   migration 008: `fetches_per_minute` (one row per minute and error code instead of every
 *   fetch: sums, t-digest states merged per bucket, error codes from the rows' key) and
 *   `fetch_simhashes_per_minute` (near duplicates: narrow, time-sorted, SimHash as 64 bits);
 * - the 15 m window (15 s buckets) reads `fetch_timeline` FINAL (migration 009): every fetch,
 *   sorted by time, so the window is a few granules: one scan of it for the buckets (error
 *   codes summed per bucket with sumMap), one for near duplicates. FINAL collapses rows
 *   replayed by the at-least-once ingest; duplicates never span partitions (days), so it
 *   merges within each;
 * - `fetches` itself, FINAL, the reference the other two are tested against: sorted by host
 *   first, a time range there prunes only by partition, so a window reads the whole day so far.
 * The rollups are fed by materialized views, which see every insert: a batch replayed after a
 * coordinator crash is counted twice there (see the migration), while a FINAL read counts it
 * once. Near duplicates were already read without FINAL, so they agree on every path.
 * Measured with 1M rows in the last 24 h (embedded chdb): see docs/ARCHITECTURE.md and
 * docs/BENCHMARKS.md (console).
 */
const WINDOW = `fetched_at >= fromUnixTimestamp64Milli({from:Int64}) AND error_code != 'robots_denied'`;

/** The buckets' query over a table of fetches; `duplicate` says a row is an exact duplicate. */
const bucketsSql = (table: string, duplicate: string) => `
SELECT toUnixTimestamp(toStartOfInterval(fetched_at, INTERVAL {b:UInt32} SECOND)) * 1000 AS t,
       count() AS pages, sum(bytes) AS bytes,
       countIf(status BETWEEN 200 AND 299) AS s2xx, countIf(status BETWEEN 300 AND 399) AS s3xx,
       countIf(status BETWEEN 400 AND 499) AS s4xx, countIf(status BETWEEN 500 AND 599) AS s5xx,
       countIf(status = 0 OR status >= 500) AS errors,
       quantilesTDigest(0.5, 0.95, 0.99)(fetch_ms) AS q,
       countIf(${duplicate}) AS duplicates,
       sumMapIf([error_code], [toUInt64(1)], error_code != '') AS codes
FROM ${table} FINAL WHERE ${WINDOW}
GROUP BY t ORDER BY t
SETTINGS do_not_merge_across_partitions_select_final = 1`;

// SimHash equal, body different: a near duplicate at distance 0 (a cheap lower bound of the
// Hamming-distance ≤ 3 rule the agent applies). `body` names the body (its hash, or a hash
// of it: bodies are only compared for equality).
const nearSql = (table: string, original: string, body: string) => `
SELECT toUnixTimestamp(toStartOfInterval(fetched_at, INTERVAL {b:UInt32} SECOND)) * 1000 AS t,
       count() AS n
FROM ${table}
WHERE ${WINDOW} AND simhash != '' AND ${original} AND simhash IN (
  SELECT simhash FROM ${table} WHERE ${WINDOW} AND simhash != ''
  GROUP BY simhash HAVING min(${body}) != max(${body}))
GROUP BY t`;

const BUCKETS_SQL = bucketsSql('fetches', `duplicate_of != ''`);
const NEAR_SQL = nearSql('fetches', `duplicate_of = ''`, 'content_hash');
const TIMELINE_BUCKETS_SQL = bucketsSql('fetch_timeline', 'duplicate');
const TIMELINE_NEAR_SQL = nearSql('fetch_timeline', 'NOT duplicate', 'body');

// The same two queries over the per-minute rollups. The window starts on a bucket boundary,
// a whole minute, so `minute >= from` selects exactly the fetches `fetched_at >= from` does.
const MINUTES = `minute >= toDateTime({from_s:UInt32}, 'UTC')`;

const ROLLUP_BUCKETS_SQL = `
SELECT toUnixTimestamp(toStartOfInterval(m.minute, INTERVAL {b:UInt32} SECOND)) * 1000 AS t,
       sum(m.pages) AS pages, sum(m.bytes) AS bytes,
       sum(m.s2xx) AS s2xx, sum(m.s3xx) AS s3xx, sum(m.s4xx) AS s4xx, sum(m.s5xx) AS s5xx,
       sum(m.errors) AS errors,
       quantilesTDigestMerge(0.5, 0.95, 0.99)(m.fetch_ms_q) AS q,
       sum(m.duplicates) AS duplicates,
       sumMapIf([m.error_code], [toUInt64(m.pages)], m.error_code != '') AS codes
FROM fetches_per_minute AS m WHERE ${MINUTES}
GROUP BY t ORDER BY t`;

const ROLLUP_NEAR_SQL = `
SELECT toUnixTimestamp(toStartOfInterval(minute, INTERVAL {b:UInt32} SECOND)) * 1000 AS t,
       sum(originals) AS n
FROM fetch_simhashes_per_minute
WHERE ${MINUTES} AND simhash_bits IN (
  SELECT simhash_bits FROM fetch_simhashes_per_minute WHERE ${MINUTES}
  GROUP BY simhash_bits HAVING min(min_body) != max(max_body))
GROUP BY t`;

/**
 * Where the series is read from: `auto` takes the rollups whenever the buckets allow, else
 * `timeline`; `fetches` is the reference.
 */
export type SeriesSource = 'auto' | 'fetches' | 'rollup' | 'timeline';

const QUERIES = {
  fetches: [BUCKETS_SQL, NEAR_SQL],
  rollup: [ROLLUP_BUCKETS_SQL, ROLLUP_NEAR_SQL],
  timeline: [TIMELINE_BUCKETS_SQL, TIMELINE_NEAR_SQL],
} as const;

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
  source: SeriesSource = 'auto',
): Promise<StatsSeries> {
  const { window } = statsSeriesInput.parse(raw);
  const [windowS, bucketS] = SERIES_WINDOWS[window];
  const firstBucket = Math.floor((now - windowS * 1000) / (bucketS * 1000)) * bucketS * 1000;
  const wholeMinutes = bucketS % 60 === 0;
  if (source === 'rollup' && !wholeMinutes)
    throw new Error(`the ${window} window's ${bucketS} s buckets are not whole minutes`);
  const [bucketsQuery, nearQuery] =
    QUERIES[source !== 'auto' ? source : wholeMinutes ? 'rollup' : 'timeline'];
  const params = { from: firstBucket, from_s: firstBucket / 1000, b: bucketS };
  // One after the other: the embedded engine runs queries in one process, and two at once
  // were slower than both in turn (measured, bench-stats-series.ts).
  const rows = await deps.analytics.queryJson<BucketRaw>(bucketsQuery, params);
  const near = await deps.analytics.queryJson<{ t: Num; n: Num }>(nearQuery, params);
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
      no_answer: 0,
      errors: Number(r?.errors ?? 0),
      p50_ms: Math.round(r?.q[0] ?? 0),
      p95_ms: Math.round(r?.q[1] ?? 0),
      p99_ms: Math.round(r?.q[2] ?? 0),
      duplicates: Number(r?.duplicates ?? 0),
      near_duplicates: nearByT.get(t) ?? 0,
    };
    // Whatever has no status class: so the five series partition the attempts (`errors` is
    // no answer *or* 5xx, and charting it beside 5xx counted every 5xx twice).
    b.no_answer = b.pages - b.s2xx - b.s3xx - b.s4xx - b.s5xx;
    mix['2xx'] += b.s2xx;
    mix['3xx'] += b.s3xx;
    mix['4xx'] += b.s4xx;
    mix['5xx'] += b.s5xx;
    mix.none += b.no_answer;
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
