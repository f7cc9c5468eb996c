import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openChdbBackend } from './chdb-backend';
import { openAnalytics, type AnalyticsStore, type FetchRow } from './index';
import { applyMigrations, loadMigrations, splitStatements } from './migrate';

const STATUSES = [200, 200, 200, 301, 404, 503, 0] as const;

function rows(count: number, now = Date.now()): FetchRow[] {
  return Array.from({ length: count }, (_, i) => {
    const status = STATUSES[i % STATUSES.length] ?? 200;
    return {
      url_fp: i.toString(16).padStart(16, '0'),
      url: `https://h${i % 50}.example/page/${i}`,
      host: `h${i % 50}.example`,
      // Spread over the last 30 s, so all fall in the 60 s rate window.
      fetched_at: new Date(now - (i % 30_000)),
      status,
      error_code: status === 0 ? 'timeout' : '',
      bytes: status === 0 ? 0 : 1000,
      fetch_ms: 120,
      content_type: status === 0 ? '' : 'text/html',
      content_hash: status === 200 ? 'a'.repeat(64) : '',
      depth: i % 5,
      agent_id: 'agent-1',
      warc_key: status === 200 ? 'crawl/2026-11-30/agent-1/00000.warc.gz' : '',
      warc_offset: i * 1000,
      warc_length: status === 200 ? 900 : 0,
      redirect_to: status === 301 ? `https://h${i % 50}.example/moved/${i}` : '',
    };
  });
}

let dir = '';
let store: AnalyticsStore | null = null;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'analytics-test-'));
});
afterEach(async () => {
  await store?.close();
  store = null;
  await rm(dir, { recursive: true, force: true });
});

async function openMigrated(): Promise<AnalyticsStore> {
  store = await openAnalytics({ path: dir, database: 'crawler_test' });
  await store.migrate();
  return store;
}

describe('migrations', () => {
  it('applies numbered migrations once; a second migrate is a no-op', async () => {
    const s = await openMigrated();
    const ledger = () =>
      s.queryJson<{ version: number; name: string; applied_at: string }>(
        'SELECT version, name, applied_at FROM schema_migrations FINAL ORDER BY version',
      );
    const first = await ledger();
    expect(first.map((r) => r.name)).toEqual([
      'schema_migrations',
      'fetches',
      'fetch_captures',
      'urls',
      'captures',
      'pages',
      'fetches_by_time',
      'fetches_per_minute',
      'fetch_timeline',
    ]);
    await s.migrate();
    expect(await ledger()).toEqual(first);
    const tables = await s.queryJson<{ name: string; engine: string }>(
      'SELECT name, engine FROM system.tables WHERE database = currentDatabase() ORDER BY name',
    );
    expect(tables).toEqual([
      { name: 'captures', engine: 'ReplacingMergeTree' },
      { name: 'captures_mv', engine: 'MaterializedView' },
      { name: 'fetch_simhashes_per_minute', engine: 'AggregatingMergeTree' },
      { name: 'fetch_simhashes_per_minute_mv', engine: 'MaterializedView' },
      { name: 'fetch_timeline', engine: 'ReplacingMergeTree' },
      { name: 'fetch_timeline_mv', engine: 'MaterializedView' },
      { name: 'fetches', engine: 'ReplacingMergeTree' },
      { name: 'fetches_by_time', engine: 'ReplacingMergeTree' },
      { name: 'fetches_by_time_mv', engine: 'MaterializedView' },
      { name: 'fetches_per_minute', engine: 'AggregatingMergeTree' },
      { name: 'fetches_per_minute_mv', engine: 'MaterializedView' },
      { name: 'pages', engine: 'ReplacingMergeTree' },
      { name: 'schema_migrations', engine: 'ReplacingMergeTree' },
      { name: 'urls', engine: 'ReplacingMergeTree' },
      { name: 'urls_mv', engine: 'MaterializedView' },
    ]);
  });

  it('refuses a migration whose file changed after it was applied', async () => {
    const db = await openChdbBackend(dir, 'crawler_test');
    try {
      const migrations = await loadMigrations();
      expect(await applyMigrations(db, migrations)).toEqual([
        '001_schema_migrations',
        '002_fetches',
        '003_fetch_captures',
        '004_urls',
        '005_captures',
        '006_pages',
        '007_fetches_by_time',
        '008_fetches_per_minute',
        '009_fetch_timeline',
      ]);
      expect(await applyMigrations(db, migrations)).toEqual([]);
      const edited = migrations.map((m) => (m.version === 2 ? { ...m, checksum: 'edited' } : m));
      await expect(applyMigrations(db, edited)).rejects.toMatchObject({
        code: 'ANALYTICS_MIGRATION_CHANGED',
      });
    } finally {
      await db.close();
    }
  });

  it('splits files into statements on ";" at line ends, dropping comment-only pieces', () => {
    expect(
      splitStatements("-- head\nCREATE TABLE a (x String DEFAULT ';');\n\nSELECT 1;\n-- tail\n"),
    ).toEqual(["-- head\nCREATE TABLE a (x String DEFAULT ';')", 'SELECT 1']);
  });
});

describe('fetches', () => {
  it('inserts 10k rows in one batch and reads the stats back', async () => {
    const s = await openMigrated();
    const batch = rows(10_000);
    await s.insertFetches(batch);
    const stats = await s.fetchStats();
    const per = (status: number) => batch.filter((r) => r.status === status).length;
    expect(stats.total).toBe(10_000);
    expect(stats.ok).toBe(per(200));
    expect(stats.errors).toBe(per(0) + per(503));
    expect(stats.bytes).toBe(batch.reduce((sum, r) => sum + r.bytes, 0));
    expect(stats.statusMix).toEqual({
      '2xx': per(200),
      '3xx': per(301),
      '4xx': per(404),
      '5xx': per(503),
      error: per(0),
    });
    expect(stats.pagesPerSecond).toBeCloseTo(10_000 / 60, 6);
  });

  it('counts a replayed batch once', async () => {
    const s = await openMigrated();
    const batch = rows(5_000);
    await s.insertFetches(batch);
    const before = await s.fetchStats();
    await s.insertFetches(batch); // at-least-once ingest replays the batch
    await s.insertFetches(batch.slice(0, 1_000));
    expect(await s.fetchStats()).toEqual(before);
    // The raw table does hold the replays until a merge; FINAL is what hides them.
    const [raw] = await s.queryJson<{ n: string }>('SELECT count() AS n FROM fetches');
    expect(Number(raw?.n)).toBeGreaterThanOrEqual(5_000);
  });

  it('rejects bad rows naming the row and field, inserting nothing', async () => {
    const s = await openMigrated();
    const batch = rows(10);
    const bad = batch.map((r, i) => (i === 3 ? { ...r, status: 1200 } : r));
    await expect(s.insertFetches(bad)).rejects.toMatchObject({
      code: 'ANALYTICS_BAD_ROW',
      message: expect.stringMatching(/row 3: field status: /) as unknown,
    });
    const wrongType = batch.map((r, i) =>
      i === 7 ? ({ ...r, fetched_at: '2026-11-30' } as unknown as FetchRow) : r,
    );
    await expect(s.insertFetches(wrongType)).rejects.toThrow(/row 7: field fetched_at/);
    const badHash = batch.map((r, i) => (i === 0 ? { ...r, content_hash: 'xyz' } : r));
    await expect(s.insertFetches(badHash)).rejects.toThrow(/row 0: field content_hash: sha256 hex/);
    expect((await s.fetchStats()).total).toBe(0);
  });

  it('binds {name:Type} parameters, Dates included, and keeps data across reopen', async () => {
    let s = await openMigrated();
    const now = Date.now();
    await s.insertFetches(rows(1_000, now));
    const query = `SELECT count() AS n FROM fetches FINAL
      WHERE host = {host:String} AND fetched_at >= {since:DateTime64(3, 'UTC')}`;
    const params = { host: "h7.example' OR 1=1 --", since: new Date(now - 500) };
    expect(await s.queryJson<{ n: string }>(query, params)).toEqual([{ n: '0' }]);
    const count = async (st: AnalyticsStore) =>
      Number(
        (
          await st.queryJson<{ n: string }>(query, {
            host: 'h7.example',
            since: new Date(now - 500),
          })
        )[0]?.n,
      );
    const expected = rows(1_000, now).filter(
      (r) => r.host === 'h7.example' && r.fetched_at.getTime() >= now - 500,
    ).length;
    expect(expected).toBeGreaterThan(0);
    expect(await count(s)).toBe(expected);

    await s.close();
    s = store = await openAnalytics({ path: dir, database: 'crawler_test' });
    expect(await count(s)).toBe(expected);
  });

  it('reports bad options and closed stores with stable codes', async () => {
    await expect(openAnalytics({ path: dir, database: 'bad-name;' })).rejects.toMatchObject({
      code: 'ANALYTICS_BAD_OPTIONS',
    });
    const s = await openMigrated();
    await s.close();
    await expect(s.fetchStats()).rejects.toMatchObject({ code: 'ANALYTICS_CLOSED' });
  });
});
