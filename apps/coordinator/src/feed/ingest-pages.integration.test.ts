import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnalytics, type AnalyticsStore } from '@crawler/analytics';
import { createLogger } from '@crawler/adapters/log';
import { pagesStreamKey } from '@crawler/domain/messages';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { publishTestPages, testPage, uniquePrefix } from '@crawler/testing';
// The agents' own publisher: the ingest must take exactly what agents write.
import { PagePublisher } from '@crawler/crawl-core';
import { PagesIngest, PAGES_INGEST_GROUP } from './ingest-pages';

const PARTITIONS = 4;
const INLINE_TEXT_BYTES = 1000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = createLogger('test', 'silent');

let dir: string;
let analytics: AnalyticsStore;
let redis: RedisClient;
let ingestRedis: RedisClient;
const prefix = uniquePrefix('pages');
const prefix2 = uniquePrefix('pages');
const prefix3 = uniquePrefix('pages');
const texts = new Map<string, string>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pages-ingest-'));
  analytics = await openAnalytics({ path: dir, database: 'crawler_test' });
  await analytics.migrate();
  redis = await connectRedis(REDIS_URL);
  ingestRedis = await connectRedis(REDIS_URL);
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await deleteKeysWithPrefix(redis, prefix2);
  await deleteKeysWithPrefix(redis, prefix3);
  redis.disconnect();
  ingestRedis.disconnect();
  await analytics.close();
  await rm(dir, { recursive: true, force: true });
});

const textOf = (i: number) =>
  i % 50 === 0 ? `Long text of page ${i}. `.repeat(100) : `Text of page ${i}.`;

async function count(sql: string): Promise<number> {
  return Number((await analytics.queryJson<{ n: string }>(sql))[0]?.n);
}

function ingest(store: AnalyticsStore = analytics, on = prefix): PagesIngest {
  return new PagesIngest(
    ingestRedis,
    store,
    { prefix: on, partitions: PARTITIONS, consumer: 'coordinator-test', batchPages: 64 },
    log,
  );
}

describe('pages ingest', () => {
  it('ingests what agents publish, skips and counts bad messages, and a replay adds no row', async () => {
    const publisher = new PagePublisher(
      redis,
      { prefix, partitions: PARTITIONS, maxLen: 100_000, inlineTextBytes: INLINE_TEXT_BYTES },
      async (key, text) => void texts.set(key, text),
      (err) => {
        throw err;
      },
    );
    const first = ingest();
    await first.start(); // running before agents publish: it reads from the stream's start anyway
    for (let i = 0; i < 600; i++) {
      const { text: _t, text_ref: _r, text_bytes: _b, ...page } = testPage(i);
      await publisher.publish(page, textOf(i));
    }
    // Broken messages in the middle of the stream must not stop it.
    await redis.xadd(pagesStreamKey(prefix, 1), '*', 'page', '{"url_fp":');
    await redis.xadd(pagesStreamKey(prefix, 2), '*', 'page', JSON.stringify({ url: 'x' }));
    await redis.xadd(pagesStreamKey(prefix, 3), '*', 'pages', JSON.stringify(testPage(1)));
    for (let i = 600; i < 1000; i++) {
      const { text: _t, text_ref: _r, text_bytes: _b, ...page } = testPage(i);
      await publisher.publish(page, textOf(i));
    }
    await publisher.flush();
    await first.settle();
    await first.stop();

    expect(first.ingested).toBe(1000);
    expect(first.rejected).toBe(3);
    expect(await count('SELECT count() AS n FROM pages FINAL')).toBe(1000);
    expect(await count("SELECT count() AS n FROM pages FINAL WHERE text_ref != ''")).toBe(20);

    const long = testPage(50);
    const [stored] = await analytics.listPages(long.url_fp);
    expect(stored).toMatchObject({
      url: long.url,
      fetched_at: new Date(long.fetched_at),
      text: '',
      text_bytes: Buffer.byteLength(textOf(50)),
      out_links: long.links.map((l) => l.url),
      out_links_nofollow: [false, true],
      change: 'new',
    });
    expect(texts.get(stored?.text_ref ?? '')).toBe(textOf(50));
    const [short] = await analytics.listPages(testPage(7).url_fp);
    expect(short).toMatchObject({ text: textOf(7), text_ref: '', title: 'Page 7' });

    // A coordinator that died after inserting but before acknowledging: everything comes again.
    for (let p = 0; p < PARTITIONS; p++)
      await redis.xgroup('SETID', pagesStreamKey(prefix, p), PAGES_INGEST_GROUP, '0');
    const replay = ingest();
    await replay.start();
    await replay.settle();
    await replay.stop();
    expect(replay.ingested).toBe(1000);
    expect(await count('SELECT count() AS n FROM pages FINAL')).toBe(1000);
    // Other groups still find every entry: the ingest does not delete what it read.
    const lengths = await Promise.all(
      Array.from({ length: PARTITIONS }, (_, p) => redis.xlen(pagesStreamKey(prefix, p))),
    );
    expect(lengths.reduce((a, b) => a + b, 0)).toBe(1003);
  });

  it('a batch whose insert fails is not acknowledged: it is read again and stored', async () => {
    // The real store, failing its first two inserts (ClickHouse briefly away).
    let failures = 2;
    const flaky: AnalyticsStore = {
      ...analytics,
      insertPages: async (rows) => {
        if (failures-- > 0) throw new Error('ClickHouse is away');
        return analytics.insertPages(rows);
      },
    };
    const before = await count('SELECT count() AS n FROM pages FINAL');
    await publishTestPages(
      redis,
      { prefix: prefix2, partitions: PARTITIONS },
      Array.from({ length: 300 }, (_, i) => testPage(5000 + i)),
    );
    const loop = ingest(flaky, prefix2);
    await loop.start();
    await loop.settle(20_000);
    await loop.stop();
    expect(failures).toBeLessThan(0);
    expect(loop.ingested).toBe(300);
    expect(await count('SELECT count() AS n FROM pages FINAL')).toBe(before + 300);
  });

  it('an ingest stopped while agents publish far past FEED_MAX_BYTES gets every page into ClickHouse', async () => {
    // Agents of a coordinated crawl keep the feed's pages for `ingest`, even before it exists.
    const maxBytes = 1024 * 1024;
    const publisher = new PagePublisher(
      redis,
      {
        prefix: prefix3,
        partitions: PARTITIONS,
        maxLen: 100_000,
        inlineTextBytes: 64 * 1024,
        maxBytes,
        groups: [PAGES_INGEST_GROUP],
      },
      () => Promise.reject(new Error('no text goes to object storage here')),
      (err) => {
        throw err;
      },
    );
    const before = await count('SELECT count() AS n FROM pages FINAL');
    const pages = 800; // ~4 kB each: three times the bound
    for (let i = 0; i < pages; i++) {
      const { text: _t, text_ref: _r, text_bytes: _b, ...page } = testPage(20_000 + i);
      await publisher.publish(page, `Words of page ${i}. `.repeat(200));
    }
    await publisher.flush();
    expect(publisher.holdsLeasing).toBe(true);
    expect(publisher.pressure!.unreadBytes).toBeGreaterThan(2 * maxBytes);
    const lengths = async () => {
      let n = 0;
      for (let p = 0; p < PARTITIONS; p++) n += await redis.xlen(pagesStreamKey(prefix3, p));
      return n;
    };
    expect(await lengths()).toBe(pages);

    // The coordinator comes back: its ingest reads all of it.
    const late = ingest(analytics, prefix3);
    await late.start();
    await late.settle();
    await late.stop();
    expect(late.ingested).toBe(pages);
    expect(await count('SELECT count() AS n FROM pages FINAL')).toBe(before + pages);
    await publisher.flush();
    expect(publisher.holdsLeasing).toBe(false);
    expect(await lengths()).toBeGreaterThanOrEqual(PARTITIONS * publisher.retention());
    expect(await lengths()).toBeLessThanOrEqual(PARTITIONS * (publisher.retention() + 100));
    expect(publisher.pressure).toMatchObject({ unreadPages: 0, droppedPages: 0 });
  });
});
