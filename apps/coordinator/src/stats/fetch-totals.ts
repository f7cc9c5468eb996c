import type { AnalyticsStore, FetchStats } from '@crawler/analytics';

/** Whole-table fetch totals (`GET /v1/stats` `fetches`, but its rate), replays counted once. */
export type FetchTotals = Omit<FetchStats, 'pagesPerSecond'>;

/*
 * The same totals as AnalyticsStore.fetchStats() (`fetches_by_time` FINAL, migration 007), summed
 * per partition (a day) and remembered per partition until one of its parts changes.
 *
 * Counting each fetch once takes FINAL over every row, and that scan was most of the overview's
 * first load (~60–150 ms for 1M rows on 2 busy cores). Duplicates never span partitions (the
 * day is a function of fetched_at, part of the identity), so a partition's totals depend on
 * its rows alone, and its rows change only when its set of active parts does: an insert adds a
 * part, a merge or a mutation (DELETE, UPDATE) replaces parts with new names, a drop removes
 * them. So each call lists the active parts (system.parts, metadata only) and re-reads FINAL
 * only the partitions whose part names changed: while a crawl runs that is today's, while it
 * does not, none. The table's UUID is part of the key: a table dropped and created again
 * numbers its parts from 1 again. The list is read before the rows: a part written in between
 * is counted now and changes the list, so the next call reads that partition again.
 */
const PARTS_SQL = `
SELECT partition_id AS id,
       concat((SELECT toString(uuid) FROM system.tables
               WHERE database = currentDatabase() AND name = 'fetches_by_time'),
              '/', arrayStringConcat(arraySort(groupArray(name)), ',')) AS parts
FROM system.parts
WHERE database = currentDatabase() AND table = 'fetches_by_time' AND active
GROUP BY partition_id`;

// URLs that robots.txt kept us from fetching are recorded too, but they are not fetch attempts.
const TOTALS_SQL = `
SELECT _partition_id AS id,
  countIf(NOT robots_denied) AS total,
  countIf(NOT robots_denied AND status BETWEEN 200 AND 299) AS s2xx,
  countIf(NOT robots_denied AND status BETWEEN 300 AND 399) AS s3xx,
  countIf(NOT robots_denied AND status BETWEEN 400 AND 499) AS s4xx,
  countIf(NOT robots_denied AND status BETWEEN 500 AND 599) AS s5xx,
  countIf(NOT robots_denied AND (status < 200 OR status > 599)) AS no_answer,
  countIf(NOT robots_denied AND (status = 0 OR status >= 500)) AS errors,
  sum(bytes) AS bytes_sum,
  countIf(robots_denied) AS denied
FROM fetches_by_time FINAL
WHERE _partition_id IN {ids:Array(String)}
GROUP BY id
SETTINGS do_not_merge_across_partitions_select_final = 1`;

const FIELDS = [
  'total',
  's2xx',
  's3xx',
  's4xx',
  's5xx',
  'no_answer',
  'errors',
  'bytes_sum',
  'denied',
] as const;
type Field = (typeof FIELDS)[number];
/** One partition's totals; bigint so that summing partitions loses nothing. */
type Counts = Record<Field, bigint>;

/** Per analytics store: partition id → its active parts when read, and its totals then. */
const remembered = new WeakMap<AnalyticsStore, Map<string, { parts: string; counts: Counts }>>();

/** {@link FetchTotals} over every partition, re-reading only those whose parts changed. */
export async function readFetchTotals(analytics: AnalyticsStore): Promise<FetchTotals> {
  const listed = await analytics.queryJson<{ id: string; parts: string }>(PARTS_SQL);
  const before = remembered.get(analytics) ?? new Map<string, { parts: string; counts: Counts }>();
  const stale = listed.filter((p) => before.get(p.id)?.parts !== p.parts).map((p) => p.id);
  const fresh = new Map<string, Counts>();
  if (stale.length > 0) {
    const rows = await analytics.queryJson<Record<Field | 'id', string | number>>(TOTALS_SQL, {
      ids: stale,
    });
    for (const r of rows)
      fresh.set(String(r.id), Object.fromEntries(FIELDS.map((f) => [f, BigInt(r[f])])) as Counts);
  }
  // Partitions gone since are forgotten; a listed one with no rows read has none.
  const now = new Map<string, { parts: string; counts: Counts }>();
  const zero = Object.fromEntries(FIELDS.map((f) => [f, 0n])) as Counts;
  for (const p of listed) {
    const counts = fresh.get(p.id) ?? (stale.includes(p.id) ? zero : before.get(p.id)!.counts);
    now.set(p.id, { parts: p.parts, counts });
  }
  remembered.set(analytics, now);
  const sum = (f: Field) => Number([...now.values()].reduce((a, p) => a + p.counts[f], 0n));
  return {
    total: sum('total'),
    ok: sum('s2xx'),
    errors: sum('errors'),
    robotsDenied: sum('denied'),
    bytes: sum('bytes_sum'),
    statusMix: {
      '2xx': sum('s2xx'),
      '3xx': sum('s3xx'),
      '4xx': sum('s4xx'),
      '5xx': sum('s5xx'),
      error: sum('no_answer'),
    },
  };
}
