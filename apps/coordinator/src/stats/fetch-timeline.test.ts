import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnalytics, type AnalyticsStore, type FetchRow } from '@crawler/analytics';
import { statsSeries } from './stats-series';

// `fetch_timeline` (migration 009) must answer as `fetches` does: the series read from it
// equal the series read from `fetches` itself, field by field, for every window, with replayed
// batches, and after the migration's backfill of rows written before it existed.
const NOW = Date.UTC(2026, 10, 30, 12, 0, 7_250);
const STATUSES = [200, 200, 200, 304, 301, 404, 503, 0, 200, 410] as const;
const WINDOWS = ['15m', '1h', '6h', '24h'] as const;

/** Fetch `i`, `ago` ms before NOW. */
function row(i: number, ago: number): FetchRow {
  const status = STATUSES[i % STATUSES.length]!;
  const denied = i % 31 === 0;
  return {
    url_fp: i.toString(16).padStart(16, '0'),
    url: `https://h${i % 13}.timeline.example/p/${i}`,
    host: `h${i % 13}.timeline.example`,
    fetched_at: new Date(NOW - ago),
    status: denied ? 0 : status,
    error_code: denied
      ? 'robots_denied'
      : status === 0
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
    duplicate_of: i % 13 === 0 ? 'https://h0.timeline.example/p/0' : '',
  };
}

// 4,000 fetches in the last 20 minutes (~65 a 15 s bucket), 2,000 over the day before.
const recent = Array.from({ length: 4_000 }, (_, i) => row(i, Math.floor((i / 4_000) * 1_200_000)));
const older = Array.from({ length: 2_000 }, (_, i) =>
  row(10_000 + i, 1_200_000 + Math.floor((i / 2_000) * 86_400_000)),
);

let dir = '';
let analytics: AnalyticsStore;

async function bothSources(window: (typeof WINDOWS)[number]) {
  return {
    timeline: await statsSeries({ analytics }, { window }, NOW, 'timeline'),
    fetches: await statsSeries({ analytics }, { window }, NOW, 'fetches'),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fetch-timeline-'));
  analytics = await openAnalytics({ path: dir, database: 'crawler_test' });
  await analytics.migrate();
});

afterAll(async () => {
  await analytics?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('fetch_timeline', () => {
  it('gives the series of every window as `fetches` does', async () => {
    for (let o = 0; o < recent.length; o += 900)
      await analytics.insertFetches(recent.slice(o, o + 900));
    await analytics.insertFetches(older);
    for (const window of WINDOWS) {
      const { timeline, fetches } = await bothSources(window);
      expect(timeline, window).toEqual(fetches);
      const pages = fetches.buckets.reduce((a, b) => a + b.pages, 0);
      expect(pages, window).toBeGreaterThan(0);
      expect(fetches.buckets.some((b) => b.near_duplicates > 0)).toBe(true);
      expect(fetches.buckets.some((b) => b.duplicates > 0)).toBe(true);
    }
    // The 15 min window (15 s buckets) reads the timeline by default.
    expect(await statsSeries({ analytics }, { window: '15m' }, NOW)).toEqual(
      (await bothSources('15m')).fetches,
    );
  });

  it('counts a replayed batch once, as `fetches` FINAL does', async () => {
    const before = await statsSeries({ analytics }, { window: '15m' }, NOW, 'fetches');
    await analytics.insertFetches(recent.slice(-500));
    const { timeline, fetches } = await bothSources('15m');
    const counts = (s: typeof fetches) => s.buckets.map(({ near_duplicates: _n, ...b }) => b);
    expect(counts(fetches)).toEqual(counts(before));
    expect(counts(timeline)).toEqual(counts(fetches));
    // Near duplicates are read without FINAL on both: once merged, the replay is gone from both.
    await analytics.queryJson('OPTIMIZE TABLE fetches FINAL');
    await analytics.queryJson('OPTIMIZE TABLE fetch_timeline FINAL');
    const merged = await bothSources('15m');
    expect(merged.timeline).toEqual(merged.fetches);
    expect(merged.fetches).toEqual(before);
  });

  it('gives the agents the rows of `fetches` in a time range', async () => {
    const byAgent = (table: string) =>
      analytics.queryJson<{ agent_id: string; n: string }>(
        `SELECT agent_id, count() AS n FROM ${table}
         WHERE fetched_at > fromUnixTimestamp64Milli({from:Int64})
           AND error_code != 'robots_denied'
         GROUP BY agent_id ORDER BY agent_id`,
        { from: NOW - 60_000 },
      );
    const fromFetches = await byAgent('fetches');
    expect(fromFetches).toHaveLength(3);
    expect(await byAgent('fetch_timeline')).toEqual(fromFetches);
  });

  it('is backfilled from the rows `fetches` had before the migration', async () => {
    // Back to a store without migration 009, then rows it never saw.
    await analytics.queryJson('DROP VIEW fetch_timeline_mv SYNC');
    await analytics.queryJson('DROP TABLE fetch_timeline SYNC');
    await analytics.queryJson('DELETE FROM schema_migrations WHERE version = 9');
    const later = Array.from({ length: 1_500 }, (_, i) =>
      row(20_000 + i, Math.floor((i / 1_500) * 600_000) + 7),
    );
    await analytics.insertFetches(later);
    await analytics.migrate();
    const [{ n } = { n: '0' }] = await analytics.queryJson<{ n: string }>(
      'SELECT count() AS n FROM fetch_timeline FINAL',
    );
    const [{ m } = { m: '-1' }] = await analytics.queryJson<{ m: string }>(
      'SELECT count() AS m FROM fetches FINAL',
    );
    expect(Number(n)).toBe(Number(m));
    for (const window of WINDOWS) {
      const { timeline, fetches } = await bothSources(window);
      expect(timeline, window).toEqual(fetches);
    }
    // And the view feeds it again.
    await analytics.insertFetches([row(30_000, 1_000)]);
    const { timeline, fetches } = await bothSources('15m');
    expect(timeline).toEqual(fetches);
  });
});
