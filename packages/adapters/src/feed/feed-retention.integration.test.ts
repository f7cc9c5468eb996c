import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagesStreamKey } from '@crawler/domain/messages';
import { deleteKeysWithPrefix, type RedisClient } from '../redis';
import { publishTestPages, testPage, testRedisBackends, uniquePrefix } from '@crawler/testing';
import { FeedConsumer, FeedRetention, feedPressure, type FeedOverflow } from './index';

// The feed's retention against a real Redis (and a cluster, every script under the slot guard):
// it trims only what every registered consumer group has acknowledged, holds the rest past the
// bound, and counts per group what it drops when told to (or when a group is unregistered).
const PARTITIONS = 2;
/** Trims take whole stream nodes: a partition may keep up to one node (≤ 100 entries) more. */
const NODE = 100;

/** Reads up to `n` pages (all there are by default) and acknowledges them unless told not to. */
async function readSome(c: FeedConsumer, n = Infinity, ack = true): Promise<number> {
  let got = 0;
  while (got < n) {
    const batch = await c.read({ count: Math.min(100, n - got) });
    if (batch.pages.length === 0) break;
    got += batch.pages.length;
    if (ack) await c.ack(batch.pages);
  }
  return got;
}

for (const backend of testRedisBackends()) {
  describe.skipIf(backend.skip)(`FeedRetention on ${backend.name}`, () => {
    let redis: RedisClient;
    const prefixes: string[] = [];
    beforeAll(async () => {
      redis = await backend.connect();
    });
    afterAll(async () => {
      for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
      redis.disconnect();
    });

    function setup(overflow: FeedOverflow = 'hold', groups: string[] = []) {
      const prefix = uniquePrefix('retention');
      prefixes.push(prefix);
      const retention = new FeedRetention(redis, {
        prefix,
        partitions: PARTITIONS,
        overflow,
        groups,
      });
      let next = 0;
      const publish = async (n: number) => {
        const pages = Array.from({ length: n }, (_, k) => testPage(next + k));
        next += n;
        await publishTestPages(redis, { prefix, partitions: PARTITIONS }, pages);
      };
      const consumer = async (group: string, name = 'c') => {
        const c = new FeedConsumer(redis, {
          prefix,
          partitions: PARTITIONS,
          group,
          consumer: name,
          fromStart: true,
          claimIdleMs: 0,
        });
        await c.start();
        return c;
      };
      const lengths = async () => {
        let n = 0;
        for (let p = 0; p < PARTITIONS; p++) n += await redis.xlen(pagesStreamKey(prefix, p));
        return n;
      };
      return { prefix, retention, publish, consumer, lengths };
    }

    it('keeps every page a lagging group has not read past the retention, and trims once it has', async () => {
      const { retention, publish, consumer, lengths } = setup();
      const fast = await consumer('fast');
      const slow = await consumer('slow');
      await publish(2000);
      await readSome(fast);
      expect(await readSome(slow, 300)).toBe(300);

      // The old bound was 100 a partition: 1,700 pages the slow group has not read stay.
      const states = await retention.trim(100);
      const kept = await lengths();
      expect(kept).toBeGreaterThanOrEqual(1700);
      expect(kept).toBeLessThanOrEqual(1700 + PARTITIONS * NODE);
      expect(states.reduce((n, s) => n + s.trimmed, 0)).toBe(2000 - kept);
      const unread = (group: string) =>
        states.reduce((n, s) => n + (s.groups.find((g) => g.group === group)?.unread ?? 0), 0);
      expect(unread('slow')).toBe(1700);
      expect(unread('fast')).toBe(0);
      expect(await readSome(slow)).toBe(1700);
      expect(slow.trimmed).toBe(0);
      expect(await slow.dropped()).toBe(0);

      // Read by both: now trimmed to the retention.
      await retention.trim(100);
      expect(await lengths()).toBeGreaterThanOrEqual(PARTITIONS * 100);
      expect(await lengths()).toBeLessThanOrEqual(PARTITIONS * (100 + NODE));
      // New pages within the retention push out the oldest read ones, not themselves.
      await publish(50);
      await retention.trim(100);
      expect(await lengths()).toBeGreaterThanOrEqual(PARTITIONS * 100);
      expect(await lengths()).toBeLessThanOrEqual(PARTITIONS * (100 + NODE));
      expect(await readSome(slow)).toBe(50);
      expect(await readSome(fast)).toBe(50);
    });

    it('never trims a pending page: a consumer that crashed re-reads all it had not acknowledged', async () => {
      const { retention, publish, consumer, lengths } = setup();
      const ingest = await consumer('ingest', 'coordinator-1');
      await publish(600);
      // Read 400, acknowledged only the second half of them (two batches, the first one failing).
      const first = await ingest.read({ count: 200 });
      const second = await ingest.read({ count: 200 });
      await ingest.ack(second.pages);
      expect(first.pages.length + second.pages.length).toBe(400);
      await retention.trim(0);
      expect(await lengths()).toBe(600); // its oldest pending page pins the feed
      await ingest.ack(first.pages.slice(0, 50));
      const states = await retention.trim(0);
      expect(await lengths()).toBeLessThan(600);
      // 150 pending and 200 never delivered, wherever they are.
      expect(states.reduce((n, s) => n + (s.groups[0]?.unread ?? 0), 0)).toBe(350);
      expect(states.reduce((n, s) => n + (s.groups[0]?.pending ?? 0), 0)).toBe(150);

      const restarted = await consumer('ingest', 'coordinator-1');
      expect(await readSome(restarted)).toBe(150 + 200);
      expect(restarted.trimmed).toBe(0);
      await retention.trim(0);
      expect(await lengths()).toBe(0);
    });

    it('keeps pages for a group that is always registered, from before it exists', async () => {
      const { retention, publish, consumer, lengths } = setup('hold', ['ingest']);
      await retention.trim(10);
      await publish(300);
      await retention.trim(10);
      expect(await lengths()).toBe(300);
      const late = await consumer('ingest');
      expect(await readSome(late)).toBe(300);
      await retention.trim(10);
      expect(await lengths()).toBeGreaterThanOrEqual(PARTITIONS * 10);
      expect(await lengths()).toBeLessThanOrEqual(PARTITIONS * (10 + NODE));
    });

    it("with FEED_OVERFLOW=drop trims anyway and counts each group's lost pages, delivered or not", async () => {
      const { retention, publish, consumer, lengths } = setup('drop');
      const reader = await consumer('reader');
      const idle = await consumer('idle');
      await publish(1000);
      // `reader` has 100 in hand unacknowledged and 100 done; `idle` has read nothing.
      await readSome(reader, 100);
      await readSome(reader, 100, false);
      const states = await retention.trim(150);
      const kept = await lengths();
      expect(kept).toBeGreaterThanOrEqual(PARTITIONS * 150);
      expect(kept).toBeLessThanOrEqual(PARTITIONS * (150 + NODE));
      const trimmed = 1000 - kept;
      expect(states.reduce((n, s) => n + s.trimmed, 0)).toBe(trimmed);
      const dropped = (group: string) => states.reduce((n, s) => n + (s.dropped[group] ?? 0), 0);
      expect(dropped('idle')).toBe(trimmed);
      expect(await idle.dropped()).toBe(trimmed);
      // Of those trimmed, `reader` had acknowledged 100: it lost the others, the 100 in hand
      // (pending) included.
      expect(dropped('reader')).toBe(trimmed - 100);
      expect(await reader.dropped()).toBe(trimmed - 100);
      expect(await readSome(idle)).toBe(kept);
      const again = await consumer('reader');
      expect(await readSome(again)).toBe(kept);
      expect(again.trimmed).toBe(100);
    });

    it('an unregistered group counts its unread pages as dropped and holds nothing any more', async () => {
      const { retention, publish, consumer, lengths } = setup();
      const gone = await consumer('gone');
      await publish(500);
      await readSome(gone, 120);
      await readSome(gone, 30, false);
      await retention.trim(0);
      expect(await lengths()).toBeGreaterThanOrEqual(500 - 120);
      expect(await lengths()).toBeLessThanOrEqual(500 - 120 + PARTITIONS * NODE);
      expect(await retention.unregister('gone')).toBe(380);
      expect(await retention.unregister('gone')).toBeNull();
      const states = await retention.trim(0);
      expect(await lengths()).toBe(0);
      const pressure = feedPressure(states, { maxBytes: 1 << 30, maxLen: 1000, overflow: 'hold' });
      expect(pressure.groups).toEqual([
        { group: 'gone', unreadPages: 0, pendingPages: 0, droppedPages: 380, registered: false },
      ]);
      expect(pressure.droppedPages).toBe(380);
      expect(await gone.dropped()).toBe(380);
    });

    it('holds leasing while unread pages reach 90% of the bound, and lets go once they are read', async () => {
      const { retention, publish, consumer } = setup();
      const slow = await consumer('slow');
      await publish(400);
      const states = await retention.read();
      const bytes = states.reduce((n, s) => n + s.bytes, 0);
      // Just above what 400 pages take: 90% of it (floored) stays over them, 440 reach it.
      const limits = {
        maxBytes: Math.ceil(bytes / 0.9) + 10,
        maxLen: 100_000,
        overflow: 'hold' as const,
      };
      expect(feedPressure(states, limits).hold).toBe(false);
      await publish(40);
      const full = feedPressure(await retention.trim(10), limits);
      expect(full).toMatchObject({ hold: true, unreadPages: 440 });
      expect(full.groups[0]).toMatchObject({ group: 'slow', unreadPages: 440, registered: true });
      expect(full.unreadBytes).toBeGreaterThanOrEqual(full.holdAtBytes);
      // The same figures with `drop`: nothing is held.
      expect(feedPressure(await retention.read(), { ...limits, overflow: 'drop' }).hold).toBe(
        false,
      );
      await readSome(slow, 200);
      const eased = feedPressure(await retention.trim(10), limits);
      expect(eased.hold).toBe(false);
      expect(eased.unreadPages).toBe(240);
      // By entries too: a partition's unread entries at 90% of FEED_MAX_LEN.
      expect(feedPressure(await retention.read(), { ...limits, maxLen: 130 }).hold).toBe(true);
    });
  });
}
