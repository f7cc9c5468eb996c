import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openChdbBackend } from './chdb-backend';
import type { ClickHouseBackend } from './clickhouse-backend';
import { encodeFetchRows, FETCH_COLUMNS } from './fetch-row';
import { openAnalytics, type AnalyticsStore, type FetchRow } from './index';
import { applyMigrations, loadMigrations } from './migrate';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const fp = (i: number) => i.toString(16).padStart(16, '0');

/** Fetch `k` (0, 1, 2, …) of URL `i`: new, then changed, then unchanged (a 304, no record). */
function fetchOf(i: number, k: number): FetchRow {
  const change = k === 0 ? 'new' : k % 2 === 1 ? 'changed' : 'unchanged';
  const archived = change !== 'unchanged';
  return {
    url_fp: fp(i),
    url: `https://h${i % 7}.example/p/${i}`,
    host: `h${i % 7}.example`,
    fetched_at: new Date(T0 + k * 3_600_000 + i),
    status: archived ? 200 : 304,
    error_code: '',
    bytes: archived ? 1000 : 0,
    fetch_ms: 40,
    content_type: 'text/html',
    content_hash: (k % 2 === 1 ? 'b' : 'a').repeat(64),
    depth: 1,
    agent_id: 'agent-1',
    warc_key: archived ? `crawl/2026-11-30/agent-1/0000${k}.warc.gz` : '',
    warc_offset: archived ? i * 1000 : 0,
    warc_length: archived ? 900 : 0,
    redirect_to: '',
    record_type: archived ? 'response' : '',
    record_id: archived ? `<urn:uuid:${fp(i)}-${k}>` : '',
    payload_digest: archived ? 'sha1:AAAA' : '',
    etag: `"v${k}"`,
    last_modified: '',
    change,
    duplicate_of: '',
    simhash: 'ffff0000ffff0000',
  };
}

/** `n` URLs fetched `times` times each. */
function history(n: number, times: number): FetchRow[] {
  return Array.from({ length: n * times }, (_, j) => fetchOf(j % n, Math.floor(j / n)));
}

let dir = '';
let store: AnalyticsStore | null = null;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'analytics-derived-'));
});
afterEach(async () => {
  await store?.close();
  store = null;
  await rm(dir, { recursive: true, force: true });
});

async function counts(s: { queryJson<T>(sql: string): Promise<T[]> }) {
  const [row] = await s.queryJson<Record<string, string>>(`SELECT
    (SELECT count() FROM urls FINAL) AS urls,
    (SELECT count() FROM captures FINAL) AS captures,
    (SELECT count() FROM fetches FINAL) AS fetches,
    (SELECT count() FROM fetches_by_time FINAL) AS by_time`);
  return Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)]));
}

/** Attempts in the per-minute rollups (migration 008), summed over all minutes. */
async function rollupSums(s: { queryJson<T>(sql: string): Promise<T[]> }) {
  const [row] = await s.queryJson<Record<string, string>>(`SELECT
    (SELECT sum(pages) FROM fetches_per_minute) AS pages,
    (SELECT sum(originals) FROM fetch_simhashes_per_minute) AS originals,
    (SELECT count() FROM (SELECT minute FROM fetches_per_minute GROUP BY minute)) AS minutes`);
  return Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)]));
}

describe('urls, captures and fetches_by_time (fed from fetches)', () => {
  it('keep the newest state per URL, count changes, index only archived fetches; replays change nothing', async () => {
    store = await openAnalytics({ path: dir, database: 'crawler_test' });
    await store.migrate();
    const rows = history(500, 3);
    await store.insertFetches(rows.slice(0, 700));
    await store.insertFetches(rows.slice(700));
    const before = await counts(store);
    expect(before).toEqual({ urls: 500, captures: 1000, fetches: 1500, by_time: 1500 });

    // At-least-once ingest: whole batches and parts of them arrive again.
    await store.insertFetches(rows);
    await store.insertFetches(rows.slice(100, 900));
    expect(await counts(store)).toEqual(before);

    const [url] = await store.getUrls([fp(42)]);
    expect(url).toMatchObject({
      url_fp: fp(42),
      host: 'h0.example',
      status: 304,
      change: 'unchanged',
      etag: '"v2"',
      fetches: 3,
      times_changed: 1,
      times_unchanged: 1,
      first_fetched_at: new Date(T0 + 42),
      last_changed_at: new Date(T0 + 3_600_000 + 42),
      fetched_at: new Date(T0 + 2 * 3_600_000 + 42),
    });
    expect(await store.getUrls(['ffffffffffffffff'])).toEqual([]);

    const captures = await store.listCaptures(fp(42));
    expect(captures.map((c) => [c.fetched_at.getTime() - T0, c.record_type, c.warc_key])).toEqual([
      [3_600_000 + 42, 'response', 'crawl/2026-11-30/agent-1/00001.warc.gz'],
      [42, 'response', 'crawl/2026-11-30/agent-1/00000.warc.gz'],
    ]);
    expect(captures[0]).toMatchObject({ warc_offset: 42_000, warc_length: 900, status: 200 });
  });

  it('a late replay of an older fetch does not overwrite the newer state', async () => {
    store = await openAnalytics({ path: dir, database: 'crawler_test' });
    await store.migrate();
    await store.insertFetches([fetchOf(1, 0), fetchOf(1, 1)]);
    await store.insertFetches([fetchOf(1, 0)]);
    const [url] = await store.getUrls([fp(1)]);
    expect(url).toMatchObject({ change: 'changed', fetches: 2, times_changed: 1 });
  });
});

describe('migrations', () => {
  async function withBackend(fn: (db: ClickHouseBackend) => Promise<void>): Promise<void> {
    const db = await openChdbBackend(dir, 'crawler_test');
    try {
      await fn(db);
    } finally {
      await db.close();
    }
  }

  it('backfill the new tables from fetches already there, and every statement runs twice cleanly', async () => {
    await withBackend(async (db) => {
      const all = await loadMigrations();
      // An installation from before migration 004, with fetches in it.
      await applyMigrations(
        db,
        all.filter((m) => m.version <= 3),
      );
      const rows = history(200, 3);
      await db.insertJsonCompact('fetches', FETCH_COLUMNS, await encodeFetchRows(rows));
      // A batch replayed before the rollups existed: their backfill reads `fetches` FINAL.
      await db.insertJsonCompact(
        'fetches',
        FETCH_COLUMNS,
        await encodeFetchRows(rows.slice(0, 100)),
      );
      expect(await applyMigrations(db, all)).toEqual([
        '004_urls',
        '005_captures',
        '006_pages',
        '007_fetches_by_time',
        '008_fetches_per_minute',
        '009_fetch_timeline',
      ]);
      const q = { queryJson: <T>(sql: string) => db.queryRows<T>(sql, {}) };
      const expected = { urls: 200, captures: 400, fetches: 600, by_time: 600 };
      expect(await counts(q)).toEqual(expected);
      // history() spans three hours, one minute each (fetched_at = T0 + k h + i ms).
      const rolled = await rollupSums(q);
      expect([rolled.pages, rolled.minutes]).toEqual([600, 3]);
      // Near-duplicate counts are read without FINAL on both paths (replays not collapsed).
      expect(rolled.originals).toBeGreaterThanOrEqual(600);
      expect(rolled.originals).toBeLessThanOrEqual(700);

      // Idempotent DDL and keyed backfills: running every statement again does no harm (the
      // rollups' backfill only fills minutes they do not have yet).
      for (const m of all) for (const statement of m.statements) await db.exec(statement);
      expect(await counts(q)).toEqual(expected);
      expect(await rollupSums(q)).toEqual(rolled);
      // And the views still feed the tables (once each).
      await db.insertJsonCompact(
        'fetches',
        FETCH_COLUMNS,
        await encodeFetchRows([fetchOf(999, 0)]),
      );
      expect(await counts(q)).toEqual({ urls: 201, captures: 401, fetches: 601, by_time: 601 });
      expect(await rollupSums(q)).toEqual({
        pages: 601,
        originals: rolled.originals! + 1,
        minutes: 3,
      });
    });
  });
});
