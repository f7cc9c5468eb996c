import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnalytics, type AnalyticsStore, type FetchRow } from '@crawler/analytics';
import { readFetchTotals } from './fetch-totals';

// The remembered per-day totals must be AnalyticsStore.fetchStats()'s, on a real embedded
// ClickHouse, whatever happened since the last read: new rows today or on an old day, a
// replayed batch, merges, deleted rows, the table emptied.
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 27, 6, 0, 0);
const STATUSES = [200, 200, 304, 301, 404, 410, 503, 0, 100, 999] as const;

function row(i: number, at: number): FetchRow {
  const status = STATUSES[i % STATUSES.length]!;
  const denied = i % 23 === 0;
  return {
    url_fp: i.toString(16).padStart(16, '0'),
    url: `https://h${i % 7}.totals.example/p/${i}`,
    host: `h${i % 7}.totals.example`,
    fetched_at: new Date(at),
    status: denied ? 0 : status,
    error_code: denied ? 'robots_denied' : status === 0 ? 'connect_timeout' : '',
    bytes: denied ? 0 : 500 + ((i * 31) % 9_000),
    fetch_ms: 10 + (i % 400),
    content_type: 'text/html',
    content_hash: '',
    depth: 0,
    agent_id: 'agent-1',
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
  };
}

/** `n` rows from index `from`, spread over `days` days from T0. */
const rows = (from: number, n: number, days: number) =>
  Array.from({ length: n }, (_, k) => row(from + k, T0 + Math.floor((k / n) * days * DAY)));

let dir = '';
let analytics: AnalyticsStore;
/** The `ids` of each query that read rows (not the list of parts), to see what is read again. */
let reads: unknown[] = [];
// One wrapper for the whole file: what readFetchTotals remembers is per store.
let store: AnalyticsStore;

/** fetchStats() without its rate, which getStats replaces. */
async function expected() {
  const { pagesPerSecond: _rate, ...rest } = await analytics.fetchStats();
  return rest;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fetch-totals-'));
  analytics = await openAnalytics({ path: dir, database: 'crawler_test' });
  await analytics.migrate();
  store = {
    ...analytics,
    queryJson: <T>(sql: string, params?: Record<string, unknown>) => {
      if (sql.includes('FROM fetches_by_time FINAL')) reads.push(params?.ids);
      return analytics.queryJson<T>(sql, params);
    },
  };
});

afterAll(async () => {
  await analytics?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('readFetchTotals', () => {
  it('is zero on an empty table', async () => {
    expect(await readFetchTotals(store)).toEqual(await expected());
    expect((await expected()).total).toBe(0);
  });

  it('sums the days as fetchStats reads the table, and reads nothing again when unchanged', async () => {
    for (let o = 0; o < 4_000; o += 1_000) await analytics.insertFetches(rows(o, 1_000, 4));
    reads = [];
    const first = await readFetchTotals(store);
    expect(first).toEqual(await expected());
    expect(first.total).toBeGreaterThan(0);
    expect(first.robotsDenied).toBeGreaterThan(0);
    expect(first.statusMix.error).toBeGreaterThan(0); // 100 and 999
    expect(reads).toHaveLength(1);
    expect(await readFetchTotals(store)).toEqual(first);
    expect(reads).toHaveLength(1);
  });

  it('follows new rows on one day, on an old day, and a replay that changes nothing', async () => {
    await analytics.insertFetches(rows(10_000, 300, 1)); // the first day only
    expect(await readFetchTotals(store)).toEqual(await expected());
    const before = await readFetchTotals(store);
    await analytics.insertFetches(rows(10_000, 300, 1)); // replayed: counted once
    expect(await readFetchTotals(store)).toEqual(before);
    expect(await readFetchTotals(store)).toEqual(await expected());
    await analytics.insertFetches(
      rows(20_000, 50, 1).map((r) => ({ ...r, fetched_at: new Date(T0 + 3 * DAY + 1) })),
    );
    expect(await readFetchTotals(store)).toEqual(await expected());
  });

  it('re-reads only the days whose parts changed', async () => {
    // One part a day: no background merge changes a day behind the test's back.
    await analytics.queryJson('OPTIMIZE TABLE fetches_by_time FINAL');
    expect(await readFetchTotals(store)).toEqual(await expected());
    reads = [];
    await analytics.insertFetches(
      rows(30_000, 20, 1).map((r) => ({ ...r, fetched_at: new Date(T0 + 9 * DAY) })),
    );
    expect(await readFetchTotals(store)).toEqual(await expected());
    expect(reads).toEqual([['20261206']]);
  });

  it('follows deleted rows and an emptied table', async () => {
    await analytics.queryJson(
      `ALTER TABLE fetches_by_time DELETE WHERE status = 404 SETTINGS mutations_sync = 2`,
    );
    const afterDelete = await expected();
    expect(afterDelete.total).toBeGreaterThan(0);
    expect(await readFetchTotals(store)).toEqual(afterDelete);
    await analytics.queryJson('TRUNCATE TABLE fetches_by_time');
    expect(await readFetchTotals(store)).toEqual(await expected());
    expect((await readFetchTotals(store)).total).toBe(0);
  });
});
