import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedConsumer } from '@crawler/adapters/feed';
import { pagesStreamKey } from '@crawler/domain/messages';
import { type RedisClient } from '@crawler/adapters/redis';
import { testPage, redisTestBed } from '@crawler/testing';
import { PagePublisher, type PagePublisherOptions } from './page-publisher';

// The feed's byte-bounded retention against a real Redis: partitions are trimmed to the entries
// their share of FEED_MAX_BYTES holds at the measured entry size, a consumer that keeps up still
// reads every page, and one that lags keeps every page it has not read while the publisher
// holds the agent's leasing.
const PARTITIONS = 4;
const bed = redisTestBed('feed-bytes');
const prefix = bed.prefix;
let redis: RedisClient;

beforeAll(async () => {
  redis = await bed.open();
});
afterAll(bed.close);

/** ~5 kB of text, inline (the inline cap is 64 KiB). */
const textOf = (i: number) => `Words of page ${i}. `.repeat(250);

function publisher(
  on: string,
  maxBytes: number,
  more: Partial<PagePublisherOptions> = {},
): PagePublisher {
  return new PagePublisher(
    redis,
    {
      prefix: on,
      partitions: PARTITIONS,
      maxLen: 100_000,
      inlineTextBytes: 64 * 1024,
      maxBytes,
      ...more,
    },
    () => Promise.reject(new Error('no text goes to object storage here')),
    (err) => {
      throw err;
    },
  );
}

async function publish(p: PagePublisher, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    const { text: _t, text_ref: _r, text_bytes: _b, ...page } = testPage(i);
    await p.publish(page, textOf(i));
  }
  await p.flush();
}

describe('PagePublisher retention by bytes', () => {
  it('trims each partition to its share of FEED_MAX_BYTES, measured in Redis', async () => {
    const on = `${prefix}:a`;
    const maxBytes = 4 * 1024 * 1024;
    const p = publisher(on, maxBytes);
    await publish(p, 0, 3000); // ~18 MB published
    // ~6 kB an entry: 1 MiB a partition holds ~170 entries.
    expect(p.meanEntryBytes).toBeGreaterThan(5000);
    expect(p.meanEntryBytes).toBeLessThan(8000);
    expect(p.retention()).toBe(Math.floor(maxBytes / PARTITIONS / p.meanEntryBytes));
    let total = 0;
    for (let n = 0; n < PARTITIONS; n++) {
      const key = pagesStreamKey(on, n);
      const len = await redis.xlen(key);
      // MAXLEN ~ trims whole nodes of 100 entries.
      expect(len).toBeGreaterThanOrEqual(p.retention());
      expect(len).toBeLessThanOrEqual(p.retention() + 100);
      total += Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
    }
    // Within the budget plus one node per partition, and the estimate not far off.
    expect(total).toBeLessThan(maxBytes + PARTITIONS * 100 * p.meanEntryBytes);
    expect(total).toBeGreaterThan(maxBytes * 0.75);
  });

  it('keeps FEED_MAX_LEN when the bytes allow more, and a consumer that keeps up reads every page', async () => {
    const on = `${prefix}:b`;
    const p = publisher(on, 16 * 1024 ** 3);
    const consumer = new FeedConsumer(redis, {
      prefix: on,
      partitions: PARTITIONS,
      group: 'downstream',
      consumer: 'c1',
      fromStart: true,
    });
    await consumer.start();
    const seen = new Set<string>();
    for (let round = 0; round < 4; round++) {
      await publish(p, round * 500, (round + 1) * 500);
      for (;;) {
        const batch = await consumer.read({ count: 500, blockMs: 10 });
        if (batch.pages.length === 0) break;
        for (const page of batch.pages) seen.add(page.page.url_fp);
        await consumer.ack(batch.pages);
      }
    }
    expect(p.retention()).toBe(100_000);
    expect(seen.size).toBe(2000);
    expect(consumer.trimmed).toBe(0);
  });

  it('keeps every page a lagging registered group has not read past the byte bound, holding leasing until it reads', async () => {
    const on = `${prefix}:c`;
    const maxBytes = 4 * 1024 * 1024;
    const holds: boolean[] = [];
    const p = publisher(on, maxBytes, { onHoldChange: (hold) => holds.push(hold) });
    const lagging = new FeedConsumer(redis, {
      prefix: on,
      partitions: PARTITIONS,
      group: 'indexer',
      consumer: 'i-1',
      fromStart: true,
    });
    await lagging.start();
    await publish(p, 0, 3000); // ~18 MB: four times the bound, nothing read
    const length = async () => {
      let n = 0;
      for (let k = 0; k < PARTITIONS; k++) n += await redis.xlen(pagesStreamKey(on, k));
      return n;
    };
    expect(await length()).toBe(3000);
    expect(p.holdsLeasing).toBe(true);
    expect(p.pressure).toMatchObject({ unreadPages: 3000, droppedPages: 0 });
    expect(p.pressure!.unreadBytes).toBeGreaterThan(maxBytes);
    expect(holds).toEqual([true]);

    const seen = new Set<string>();
    for (;;) {
      const batch = await lagging.read({ count: 500 });
      if (batch.pages.length === 0) break;
      for (const page of batch.pages) seen.add(page.page.url_fp);
      await lagging.ack(batch.pages);
    }
    expect(seen.size).toBe(3000);
    await p.trim();
    // Read now, so trimmed to the share again (whole nodes: up to 100 entries a partition more).
    expect(await length()).toBeGreaterThanOrEqual(PARTITIONS * p.retention());
    expect(await length()).toBeLessThanOrEqual(PARTITIONS * (p.retention() + 100));
    expect(p.holdsLeasing).toBe(false);
    expect(holds).toEqual([true, false]);
    expect(lagging.trimmed).toBe(0);
    expect(await lagging.dropped()).toBe(0);
  });
});
