import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsedPageSchema, telemetryRowSchema } from '@crawler/domain/messages';
import { CAPTURE_COLUMNS } from './capture-row';
import { FETCH_COLUMNS } from './fetch-row';
import { openAnalytics, type AnalyticsStore } from './index';
import { PAGE_COLUMNS } from './page-row';
import { URL_COLUMNS } from './url-state';

// The messages' schemas are the tables' column lists: every column of each table, in its
// order, as the real embedded engine has it after the migrations.

let dir = '';
let store: AnalyticsStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'analytics-columns-'));
  store = await openAnalytics({ path: dir, database: 'crawler_test' });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function columnsOf(table: string): Promise<string[]> {
  const rows = await store.queryJson<{ name: string }>(
    `SELECT name FROM system.columns
     WHERE database = currentDatabase() AND table = {table:String} ORDER BY position`,
    { table },
  );
  return rows.map((r) => r.name);
}

describe('table columns', () => {
  it('fetches: the telemetry message, field for field', async () => {
    const columns = await columnsOf('fetches');
    expect(columns).toEqual(Object.keys(telemetryRowSchema.shape));
    expect(columns).toEqual(FETCH_COLUMNS);
  });

  it('pages: the feed message, its links split into a count, the URLs and their flags', async () => {
    const columns = await columnsOf('pages');
    expect(columns).toEqual(PAGE_COLUMNS);
    const message = Object.keys(parsedPageSchema.shape);
    const at = message.indexOf('links');
    expect(columns).toEqual([
      ...message.slice(0, at),
      'links_count',
      'out_links',
      'out_links_nofollow',
      ...message.slice(at + 1),
    ]);
  });

  it('captures and urls: fetch row fields, in the order of each table', async () => {
    expect(await columnsOf('captures')).toEqual(CAPTURE_COLUMNS);
    expect(await columnsOf('urls')).toEqual(URL_COLUMNS);
    for (const c of [...CAPTURE_COLUMNS, ...URL_COLUMNS]) expect(FETCH_COLUMNS).toContain(c);
  });
});
