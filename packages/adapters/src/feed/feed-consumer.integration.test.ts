import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagePartition, pagesStreamKey } from '@crawler/domain/messages';
import { deleteKeysWithPrefix, type RedisClient } from '../redis';
import { publishTestPages, testPage, testRedisBackends, uniquePrefix } from '@crawler/testing';
import { FeedConsumer, type FeedConsumerOptions } from './index';

const PARTITIONS = 4;

/** Reads until a read comes back empty; acknowledges everything unless `ack` is false. */
async function readAll(c: FeedConsumer, opts: { count?: number; ack?: boolean } = {}) {
  const fps: string[] = [];
  for (;;) {
    const batch = await c.read({ count: opts.count ?? 50 });
    if (batch.pages.length + batch.rejected.length === 0) return fps;
    fps.push(...batch.pages.map((p) => p.page.url_fp));
    if (opts.ack !== false) await c.ack([...batch.pages, ...batch.rejected]);
  }
}

for (const backend of testRedisBackends()) {
  describe.skipIf(backend.skip)(`FeedConsumer on ${backend.name}`, () => {
    let redis: RedisClient;
    const prefixes: string[] = [];
    beforeAll(async () => {
      redis = await backend.connect();
    });
    afterAll(async () => {
      for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
      redis.disconnect();
    });

    function setup() {
      const prefix = uniquePrefix('feed');
      prefixes.push(prefix);
      const consumer = async (
        group: string,
        name: string,
        more: Partial<FeedConsumerOptions> = {},
      ) => {
        const c = new FeedConsumer(redis, {
          prefix,
          partitions: PARTITIONS,
          group,
          consumer: name,
          fromStart: true,
          ...more,
        });
        await c.start();
        return c;
      };
      const publish = (from: number, n: number) =>
        publishTestPages(
          redis,
          { prefix, partitions: PARTITIONS },
          Array.from({ length: n }, (_, k) => testPage(from + k)),
        );
      return { prefix, consumer, publish };
    }
    const fpsOf = (from: number, n: number) =>
      Array.from({ length: n }, (_, k) => testPage(from + k).url_fp).sort();

    it('two groups read the whole feed independently, each at its own pace', async () => {
      const { consumer, publish } = setup();
      const fast = await consumer('indexer', 'i-1');
      const slow = await consumer('training', 't-1');
      await publish(0, 300);

      expect((await readAll(fast)).sort()).toEqual(fpsOf(0, 300));
      // The slow group has read 40 so far; the fast one's progress does not move it.
      const first = await slow.read({ count: 40 });
      expect(first.pages).toHaveLength(40);
      await slow.ack(first.pages);
      const lag = await slow.lag();
      expect(lag.map((p) => p.partition)).toEqual([0, 1, 2, 3]);
      expect(lag.reduce((n, p) => n + (p.lag ?? 0), 0)).toBe(260);
      expect(lag.reduce((n, p) => n + p.length, 0)).toBe(300);
      expect(await fast.caughtUp()).toBe(true);
      expect(await slow.caughtUp()).toBe(false);

      await publish(300, 100);
      expect((await readAll(fast)).sort()).toEqual(fpsOf(300, 100));
      const rest = await readAll(slow);
      expect([...first.pages.map((p) => p.page.url_fp), ...rest].sort()).toEqual(fpsOf(0, 400));
      expect(await slow.caughtUp()).toBe(true);
    });

    it('a restarted consumer re-reads its unacknowledged pages first, then goes on', async () => {
      const { consumer, publish } = setup();
      await publish(0, 100);
      const c1 = await consumer('g', 'worker-a');
      const batch = await c1.read({ count: 30 });
      expect(batch.pages).toHaveLength(30);
      await c1.ack(batch.pages.slice(0, 10)); // then it "crashes"

      const again = await consumer('g', 'worker-a', { claimIdleMs: 0 });
      const pending = await again.read({ count: 100 });
      expect(pending.pages.map((p) => p.id)).toEqual(
        expect.arrayContaining(batch.pages.slice(10).map((p) => p.id)),
      );
      expect(pending.pages).toHaveLength(20);
      await again.ack(pending.pages);
      const rest = await readAll(again);
      expect(rest).toHaveLength(70);
      const seen = [...batch.pages.slice(0, 10), ...pending.pages].map((p) => p.page.url_fp);
      expect([...seen, ...rest].sort()).toEqual(fpsOf(0, 100));
    });

    it('takes over the pages of a consumer that went away once they are idle', async () => {
      const { consumer, publish } = setup();
      await publish(0, 60);
      const dead = await consumer('g', 'dead');
      const lost = await dead.read({ count: 25 }); // read, never acknowledged
      const heir = await consumer('g', 'heir', { claimIdleMs: 200 });
      const early = await readAll(heir);
      expect(early).toHaveLength(35);
      await sleep(250);
      const claimed = await readAll(heir);
      expect(claimed.sort()).toEqual(lost.pages.map((p) => p.page.url_fp).sort());
      expect(heir.claimed).toBe(25);
      expect(await heir.caughtUp()).toBe(true);
    });

    it('returns bad entries as rejected with a reason, and they do not block the rest', async () => {
      const { prefix, consumer, publish } = setup();
      const c = await consumer('g', 'c');
      await publish(0, 5);
      const key = pagesStreamKey(prefix, 0);
      await redis.xadd(key, '*', 'page', '{not json');
      await redis.xadd(key, '*', 'other', 'x');
      await redis.xadd(key, '*', 'page', JSON.stringify({ ...testPage(5), url_fp: 'XYZ' }));
      await redis.xadd(key, '*', 'page', JSON.stringify({ ...testPage(6), links: 'none' }));
      await publish(7, 5);
      const pages: string[] = [];
      const reasons: string[] = [];
      for (;;) {
        const b = await c.read({ count: 100 });
        if (b.pages.length + b.rejected.length === 0) break;
        pages.push(...b.pages.map((p) => p.page.url_fp));
        reasons.push(...b.rejected.map((r) => r.reason));
        await c.ack([...b.pages, ...b.rejected]);
      }
      expect(pages.sort()).toEqual([...fpsOf(0, 5), ...fpsOf(7, 5)].sort());
      expect(reasons.sort()).toEqual([
        expect.stringMatching(/^links: /),
        'no "page" field',
        'page is not JSON',
        expect.stringMatching(/^url_fp: /),
      ]);
      expect(c.rejected).toBe(4);
      expect(await c.caughtUp()).toBe(true);
    });

    it('a read with blockMs waits for the next page and returns as soon as it comes', async () => {
      const { prefix, publish } = setup();
      // Reads that BLOCK need a connection of their own.
      const own = await backend.connect();
      const c = new FeedConsumer(own, {
        prefix,
        partitions: PARTITIONS,
        group: 'g',
        consumer: 'c',
      });
      await c.start();
      const t0 = Date.now();
      const reading = c.read({ count: 10, blockMs: 5000 });
      await sleep(150);
      await publish(0, 1);
      const batch = await reading;
      expect(batch.pages.map((p) => p.page.url_fp)).toEqual(fpsOf(0, 1));
      expect(Date.now() - t0).toBeLessThan(2000);
      const t1 = Date.now();
      expect((await c.read({ count: 10, blockMs: 300 })).pages).toEqual([]);
      expect(Date.now() - t1).toBeGreaterThanOrEqual(250);
      own.disconnect();
    });

    it('a new group starts with new pages unless fromStart', async () => {
      const { consumer, publish } = setup();
      await publish(0, 20);
      const late = await consumer('late', 'x', { fromStart: false });
      const all = await consumer('all', 'x', { fromStart: true });
      await publish(20, 10);
      expect((await readAll(late)).sort()).toEqual(fpsOf(20, 10));
      expect(await readAll(all)).toHaveLength(30);
    });

    it('pending pages trimmed away by MAXLEN are acknowledged and counted as lost', async () => {
      const { prefix, consumer } = setup();
      const c = await consumer('g', 'slow');
      // All in partition 0, trimmed exactly, so the numbers are deterministic.
      const p0 = [];
      for (let i = 0; p0.length < 30; i++) {
        if (pagePartition(testPage(i).url_fp, PARTITIONS) === 0) p0.push(testPage(i));
      }
      const key = pagesStreamKey(prefix, 0);
      for (const page of p0.slice(0, 10)) await redis.xadd(key, '*', 'page', JSON.stringify(page));
      expect((await c.read({ count: 40 })).pages).toHaveLength(10); // never acknowledged
      for (const page of p0.slice(10))
        await redis.xadd(key, 'MAXLEN', '5', '*', 'page', JSON.stringify(page));

      const restarted = await consumer('g', 'slow', { claimIdleMs: 0 });
      const got = await readAll(restarted);
      expect(restarted.trimmed).toBe(10);
      // The group had read 10, the stream kept the last 5: the 15 in between are gone unseen.
      expect(got.sort()).toEqual(
        p0
          .slice(25)
          .map((p) => p.url_fp)
          .sort(),
      );
      expect(await restarted.caughtUp()).toBe(true);
    });
  });
}
