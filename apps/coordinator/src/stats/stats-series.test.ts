import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnalytics, type AnalyticsStore, type FetchRow } from '@crawler/analytics';
import { statsSeries } from './stats-series';

// The series read from the per-minute rollups (migration 008) must be the series read from
// `fetches` itself, on a real embedded ClickHouse: a known day of fetches, every window whose
// buckets are whole minutes, both sources compared field by field.
const NOW = Date.UTC(2026, 10, 30, 12, 0, 7_250);
const DAY = 86_400_000;
const ROWS = 3_000;
const STATUSES = [200, 200, 200, 304, 301, 404, 503, 0, 200, 410] as const;

function row(i: number, over: Partial<FetchRow> = {}): FetchRow {
  const status = STATUSES[i % STATUSES.length]!;
  return {
    url_fp: i.toString(16).padStart(16, '0'),
    url: `https://h${i % 17}.series.example/p/${i}`,
    host: `h${i % 17}.series.example`,
    // Spread over the 24 h before NOW (and a little before the 24 h window starts).
    fetched_at: new Date(NOW - Math.floor(((ROWS - i) / ROWS) * (DAY + 1_800_000))),
    status,
    error_code:
      status === 0
        ? i % 3 === 0
          ? 'connect_timeout'
          : 'total_timeout'
        : status === 503
          ? 'http_503'
          : '',
    bytes: 1_000 + ((i * 37) % 5_000),
    fetch_ms: 20 + ((i * 7919) % 1_500),
    content_type: 'text/html',
    content_hash: (i % 41).toString(16).padStart(64, '0'),
    depth: i % 5,
    agent_id: `agent-${i % 3}`,
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
    // SimHash groups of 29 rows with 41 different bodies: many near duplicates; some rows none.
    simhash: i % 11 === 0 ? '' : (i % 29).toString(16).padStart(16, '0'),
    duplicate_of: i % 13 === 0 ? 'https://h0.series.example/p/0' : '',
    ...over,
  };
}

let dir = '';
let analytics: AnalyticsStore;
const rows = Array.from({ length: ROWS }, (_, i) => row(i));
// robots.txt refusals are recorded but are not attempts: neither source counts them.
const refused = Array.from({ length: 40 }, (_, i) =>
  row(ROWS + i, { status: 0, error_code: 'robots_denied', fetched_at: new Date(NOW - i * 60_000) }),
);
// A SimHash whose only two bodies fall in different hours: a near duplicate in the 6 h window
// and not in the 1 h window.
const pair = [
  row(ROWS + 100, { simhash: 'abcdefabcdefabcd', fetched_at: new Date(NOW - 2 * 3_600_000) }),
  row(ROWS + 101, { simhash: 'abcdefabcdefabcd', fetched_at: new Date(NOW - 30 * 60_000) }),
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stats-series-'));
  analytics = await openAnalytics({ path: dir, database: 'crawler_test' });
  await analytics.migrate();
  // Half before the views exist would be the migration's backfill (tested in the shared
  // package); here every row goes through the views, in several batches.
  for (let o = 0; o < ROWS; o += 700) await analytics.insertFetches(rows.slice(o, o + 700));
  await analytics.insertFetches([...refused, ...pair]);
});

afterAll(async () => {
  await analytics?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const sum = (s: Awaited<ReturnType<typeof statsSeries>>, k: 'pages' | 'duplicates') =>
  s.buckets.reduce((a, b) => a + b[k], 0);

describe('stats series from the per-minute rollups', () => {
  it.each(['1h', '6h', '24h'] as const)(
    'the %s window gives the same numbers as the raw query',
    async (window) => {
      const raw = await statsSeries({ analytics }, { window }, NOW, 'fetches');
      const rollup = await statsSeries({ analytics }, { window }, NOW, 'rollup');
      expect(rollup).toEqual(raw);
      // And the default path takes the rollups for whole-minute buckets.
      expect(await statsSeries({ analytics }, { window }, NOW)).toEqual(rollup);
      // The dataset exercises every field.
      expect(sum(raw, 'pages')).toBeGreaterThan(0);
      expect(sum(raw, 'duplicates')).toBeGreaterThan(0);
      expect(raw.buckets.some((b) => b.near_duplicates > 0)).toBe(true);
      expect(raw.buckets.some((b) => b.p99_ms > b.p50_ms)).toBe(true);
      expect(raw.error_codes.map((c) => c.code).sort()).toEqual([
        'connect_timeout',
        'http_503',
        'total_timeout',
      ]);
    },
  );

  it('counts exactly the fetches of the window, robots.txt refusals left out', async () => {
    const s = await statsSeries({ analytics }, { window: '24h' }, NOW, 'rollup');
    const from = s.buckets[0]!.t;
    const inWindow = [...rows, ...pair].filter((r) => r.fetched_at.getTime() >= from);
    expect(inWindow.length).toBeLessThan(ROWS); // some rows fall before the window
    expect(sum(s, 'pages')).toBe(inWindow.length);
    expect(sum(s, 'duplicates')).toBe(inWindow.filter((r) => r.duplicate_of !== '').length);
    expect(s.status_mix.reduce((a, m) => a + m.count, 0)).toBe(inWindow.length);
    const http503 = s.error_codes.find((c) => c.code === 'http_503');
    expect(http503?.count).toBe(inWindow.filter((r) => r.error_code === 'http_503').length);
    expect(s.bucket_s).toBe(900);
    expect(s.buckets.every((b) => b.t % 900_000 === 0)).toBe(true);
  });

  // The status-mix chart stacks 2xx … 5xx and "no answer": each attempt must be in exactly one
  // (it once stacked `errors`, no answer *or* 5xx, so every 5xx showed twice).
  it('partitions the attempts into status classes and no answer, on both sources', async () => {
    const cases: ReadonlyArray<readonly ['15m' | '1h' | '6h' | '24h', 'fetches' | 'rollup']> = [
      ['15m', 'fetches'],
      ...(['1h', '6h', '24h'] as const).flatMap((w) => [
        [w, 'fetches'] as const,
        [w, 'rollup'] as const,
      ]),
    ];
    for (const [window, source] of cases) {
      const s = await statsSeries({ analytics }, { window }, NOW, source);
      const from = s.buckets[0]!.t;
      const inWindow = [...rows, ...pair].filter((r) => r.fetched_at.getTime() >= from);
      const what = `${window} ${source}`;
      for (const b of s.buckets) {
        expect(b.s2xx + b.s3xx + b.s4xx + b.s5xx + b.no_answer, what).toBe(b.pages);
        expect(b.errors, what).toBe(b.no_answer + b.s5xx);
      }
      const total = (k: 'no_answer' | 's5xx') => s.buckets.reduce((a, b) => a + b[k], 0);
      expect(total('no_answer'), what).toBe(inWindow.filter((r) => r.status === 0).length);
      expect(total('s5xx'), what).toBe(inWindow.filter((r) => r.status === 503).length);
      expect(total('no_answer'), what).toBeGreaterThan(0);
      expect(total('s5xx'), what).toBeGreaterThan(0);
      const mix = Object.fromEntries(s.status_mix.map((m) => [m.status_class, m.count]));
      expect([mix.none, mix['5xx']], what).toEqual([total('no_answer'), total('s5xx')]);
    }
  });

  it('finds near duplicates as a reference computation does, on both sources', async () => {
    // A SimHash seen with two different bodies in the window; its attempts that are not exact
    // duplicates count, in their bucket.
    const expected = (from: number, b: number) => {
      const seen = [...rows, ...pair].filter(
        (r) => r.fetched_at.getTime() >= from && r.simhash !== '',
      );
      const bodies = new Map<string, Set<string>>();
      for (const r of seen) {
        const sh = r.simhash ?? '';
        bodies.set(sh, (bodies.get(sh) ?? new Set<string>()).add(r.content_hash));
      }
      const n = new Map<number, number>();
      for (const r of seen) {
        if (r.duplicate_of !== '' || bodies.get(r.simhash ?? '')!.size < 2) continue;
        const t = Math.floor(r.fetched_at.getTime() / b) * b;
        n.set(t, (n.get(t) ?? 0) + 1);
      }
      return n;
    };
    for (const window of ['1h', '6h', '24h'] as const) {
      for (const source of ['fetches', 'rollup'] as const) {
        const s = await statsSeries({ analytics }, { window }, NOW, source);
        const want = expected(s.buckets[0]!.t, s.bucket_s * 1000);
        expect(
          s.buckets.map((x) => x.near_duplicates),
          `${window} ${source}`,
        ).toEqual(s.buckets.map((x) => want.get(x.t) ?? 0));
      }
    }
    // The pair's two bodies are 90 min apart: near duplicates in 6 h, not in the last hour.
    const pairBodies = (from: number) =>
      new Set(pair.filter((r) => r.fetched_at.getTime() >= from).map((r) => r.content_hash)).size;
    expect([pairBodies(NOW - 3_600_000), pairBodies(NOW - 6 * 3_600_000)]).toEqual([1, 2]);
  });

  it('keeps the 15 min window (15 s buckets) on the raw table', async () => {
    await expect(statsSeries({ analytics }, { window: '15m' }, NOW, 'rollup')).rejects.toThrow(
      /not whole minutes/,
    );
    const auto = await statsSeries({ analytics }, { window: '15m' }, NOW);
    expect(auto).toEqual(await statsSeries({ analytics }, { window: '15m' }, NOW, 'fetches'));
    expect(auto.bucket_s).toBe(15);
  });

  // Documented trade-off (migration 008): the views see every insert, so a batch replayed by
  // the at-least-once ingest is counted twice by the rollups, once by `fetches` FINAL.
  it('over-counts a replayed batch on the rollups, by exactly that batch', async () => {
    const replay = rows.slice(-50);
    const before = await statsSeries({ analytics }, { window: '1h' }, NOW, 'rollup');
    await analytics.insertFetches(replay);
    const raw = await statsSeries({ analytics }, { window: '1h' }, NOW, 'fetches');
    const rollup = await statsSeries({ analytics }, { window: '1h' }, NOW, 'rollup');
    expect(sum(raw, 'pages')).toBe(sum(before, 'pages'));
    expect(sum(rollup, 'pages')).toBe(sum(before, 'pages') + replay.length);
  });
});
