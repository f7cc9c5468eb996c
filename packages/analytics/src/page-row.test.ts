import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnalytics, type AnalyticsStore, type PageRow } from './index';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const fp = (i: number) => i.toString(16).padStart(16, '0');

function page(i: number, overrides: Partial<PageRow> = {}): PageRow {
  return {
    url_fp: fp(i),
    url: `https://h${i % 5}.example/p/${i}`,
    host: `h${i % 5}.example`,
    fetched_at: new Date(T0 + i),
    status: 200,
    content_type: 'text/html',
    charset: 'utf-8',
    title: `Page ${i} — ünïcode`,
    description: 'A page',
    lang: 'en',
    text: `Text of page ${i}\nwith "quotes", tabs\tand a second line.`,
    text_ref: '',
    text_bytes: 50,
    canonical: '',
    noindex: i % 3 === 0,
    nofollow: false,
    out_links: [`https://h${i % 5}.example/p/${i + 1}`, 'https://other.example/'],
    out_links_nofollow: [false, true],
    simhash: '0123456789abcdef',
    content_hash: 'c'.repeat(64),
    change: 'new',
    warc_key: 'crawl/2026-11-30/agent-1/00000.warc.gz',
    warc_offset: i * 2000,
    warc_length: 1800,
    record_id: `<urn:uuid:${i}>`,
    depth: 2,
    agent_id: 'agent-1',
    ...overrides,
  };
}

let dir = '';
let store: AnalyticsStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'analytics-pages-'));
  store = await openAnalytics({ path: dir, database: 'crawler_test' });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const finalCount = async () =>
  Number((await store.queryJson<{ n: string }>('SELECT count() AS n FROM pages FINAL'))[0]?.n);

describe('pages', () => {
  it('inserts a batch, reads a page back whole, and a replayed batch adds no row', async () => {
    const batch = Array.from({ length: 2000 }, (_, i) => page(i));
    await store.insertPages(batch);
    await store.insertPages(batch);
    await store.insertPages(batch.slice(500, 800));
    expect(await finalCount()).toBe(2000);

    const [back] = await store.listPages(fp(9));
    expect(back).toEqual({ ...page(9) });
    const rows = await store.queryJson<{ links_count: number }>(
      'SELECT links_count FROM pages FINAL WHERE url_fp = {fp:String}',
      { fp: fp(9) },
    );
    expect(rows).toEqual([{ links_count: 2 }]);
  });

  it('keeps each capture of a URL, newest first', async () => {
    await store.insertPages([
      page(5000, { fetched_at: new Date(T0 + 1000), change: 'new' }),
      page(5000, {
        fetched_at: new Date(T0 + 2000),
        change: 'changed',
        text: '',
        text_ref: 'text/cc/x.txt',
        text_bytes: 100_000,
      }),
    ]);
    const pages = await store.listPages(fp(5000));
    expect(pages.map((p) => [p.change, p.text_ref, p.text_bytes])).toEqual([
      ['changed', 'text/cc/x.txt', 100_000],
      ['new', '', 50],
    ]);
  });

  it('rejects a bad row naming it and its field, inserting nothing of the batch', async () => {
    const before = await finalCount();
    const bad = [page(9001), page(9002, { simhash: 'xyz' }), page(9003)];
    await expect(store.insertPages(bad)).rejects.toMatchObject({
      code: 'ANALYTICS_BAD_ROW',
      message: expect.stringMatching(/^pages row 1: field simhash: /) as unknown,
    });
    const uneven = [page(9004, { out_links_nofollow: [] })];
    await expect(store.insertPages(uneven)).rejects.toThrow(/row 0: field out_links_nofollow/);
    expect(await finalCount()).toBe(before);
  });
});
