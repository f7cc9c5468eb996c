import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier } from './frontier';
import { SpillPump } from './spill-pump';
import { SpillStore } from './spill-store';
import { frontierTestBed, testUrl } from './testing/frontier-test-kit';
import { spillTestDatabase } from './testing/spill-test-db';
import type { EnqueueUrl } from './types';

/**
 * The bounded heads (FRONTIER_HEAD_MAX): what does not fit a host tier's head spills to the
 * overflow list and Postgres and comes back in order, exactly once, even when the refiller is
 * killed between pushing a batch into Redis and deleting it from Postgres.
 */
const bed = frontierTestBed('spill');
const db = spillTestDatabase();
beforeAll(async () => {
  await bed.open();
  await db.open();
});
afterAll(async () => {
  await db.close();
  await bed.close();
});

/** A frontier with heads of 3 (batches of 3) and its own pump (not run before leases). */
function make(): { f: Frontier; pump: SpillPump; store: SpillStore } {
  const prefix = bed.newPrefix();
  const f = new Frontier(bed.redis(), {
    prefix,
    shards: 4,
    leaseMs: 60_000,
    defaultGapMs: 0,
    headMax: 3,
    maxUrlsPerLease: 3,
  });
  const store = new SpillStore(db.pool(), prefix);
  return { f, pump: new SpillPump(f.spill, store), store };
}

/** URLs of one host: `n` each in tiers 0 and 5, interleaved. */
function urls(host: string, n: number): EnqueueUrl[] {
  return Array.from({ length: 2 * n }, (_, i) =>
    testUrl(host, `p${i}`, { priority: i % 2 === 0 ? 0 : 5 }),
  );
}

/** Leases and completes until idle (the pump drained before each lease); the URLs in order. */
async function crawlAll(f: Frontier, pump: SpillPump): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < 1000 && !(await f.isIdle()); i++) {
    await pump.drain();
    for (const l of await f.lease('a', 10)) {
      seen.push(...l.urls.map((u) => u.url));
      await f.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 0 });
    }
  }
  return seen;
}

describe('bounded heads', () => {
  it('keeps at most a head per tier in Redis and counts the spilled URLs as queued', async () => {
    const { f, pump, store } = make();
    await f.enqueue(urls('a.test', 10));
    const s = f.shardOf('a.test');
    expect(await bed.redis().llen(f.keys.tierQueue(s, '0', 'a.test'))).toBe(3);
    expect(await bed.redis().llen(f.keys.tierQueue(s, '5', 'a.test'))).toBe(3);
    expect(await f.stats()).toMatchObject({ queuedUrls: 20, spilledUrls: 14 });
    expect((await f.hostState('a.test')).queued).toBe(20);
    await pump.drain();
    expect(await bed.redis().llen(f.keys.overflow(s))).toBe(0);
    expect(await store.count()).toBe(14);
    expect(await f.isIdle()).toBe(false);
  });

  it('hands every URL out once, each tier in its order, and ends idle with nothing spilled', async () => {
    const { f, pump, store } = make();
    const all = urls('b.test', 12);
    await f.enqueue(all);
    // More URLs after some spilled: they queue behind the spilled ones.
    const late = [
      testUrl('b.test', 'late0', { priority: 0 }),
      testUrl('b.test', 'late5', { priority: 5 }),
    ];
    await f.enqueue(late);
    const got = await crawlAll(f, pump);
    expect([...got].sort()).toEqual([...all, ...late].map((u) => u.url).sort());
    const tier = (p: number) => [...all, ...late].filter((u) => u.priority === p).map((u) => u.url);
    expect(got.filter((u) => tier(0).includes(u))).toEqual(tier(0));
    expect(got.filter((u) => tier(5).includes(u))).toEqual(tier(5));
    expect(await f.stats()).toMatchObject({ queuedUrls: 0, spilledUrls: 0, openLeases: 0 });
    expect(await store.count()).toBe(0);
  });

  it('drops a parked host’s spilled URLs in Postgres, counted, never into Redis', async () => {
    const { f, pump, store } = make();
    await f.enqueue(urls('c.test', 5));
    await pump.drain();
    expect(await store.count()).toBe(4);
    const [l] = await f.lease('a', 1);
    await f.complete(l!, { processed: 0, delayMs: 0, paceMs: 0, parkReason: 'robots_5xx' });
    await pump.drain();
    // The lease's 3 and the other tier's head of 3 are dead letters; the 4 spilled are dropped.
    expect(await f.stats()).toMatchObject({ queuedUrls: 0, spilledUrls: 0, deadLetters: 6 });
    expect(await f.deadLettersDroppedByReason()).toEqual({ robots_5xx: 4 });
    expect(await store.count()).toBe(0);
    expect(await f.isIdle()).toBe(true);
  });

  it('releases a batch claimed but never applied (a refiller stopped before the push)', async () => {
    const { f, pump, store } = make();
    await f.enqueue(urls('d.test', 5));
    await pump.spillShard(f.shardOf('d.test'));
    const { epoch } = await store.ownership();
    const claimed = await store.claim(epoch, f.shardOf('d.test'), 'lost-batch', [
      { host: 'd.test', tier: '0', want: 2 },
    ]);
    // Tier 0's head holds p0, p2, p4: the spill's first two are p6 and p8, as they were queued.
    expect(claimed.map((c) => c.map((e) => e.slice(e.lastIndexOf('|') + 1)))).toEqual([
      ['http://d.test/p6', 'http://d.test/p8'],
    ]);
    // Claimed under the batch, not deleted: still spilled.
    expect(await store.count()).toBe(4);
    const fresh = new SpillPump(f.spill, store);
    expect(await fresh.recover()).toBe(1);
    const got = await crawlAll(f, fresh);
    expect([...got].sort()).toEqual(
      urls('d.test', 5)
        .map((u) => u.url)
        .sort(),
    );
  });

  it('loses and duplicates nothing when the refiller is SIGKILLed between push and delete', async () => {
    const { f, store } = make();
    const all = urls('e.test', 8);
    await f.enqueue(all);
    // One lease empties tier 0's head below the low-water mark: the host asks for a refill.
    const [first] = await f.lease('a', 1);
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./testing/spill-refill-child.ts', import.meta.url)),
        process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        f.keys.prefix,
        db.url,
        '4',
        '3',
        '3',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(child.signal, child.stderr).toBe('SIGKILL');
    const s = f.shardOf('e.test');
    const [pending] = await store.claimed(s);
    expect(pending).toBeDefined();
    // Redis has the batch, Postgres still has its rows.
    expect(await f.spill.applied(s, pending!)).toBe(true);
    await f.complete(first!, { processed: first!.urls.length, delayMs: 0, paceMs: 0 });
    // A restarted refiller settles the batch (rows deleted, not pushed again), then drains.
    const restarted = new SpillPump(f.spill, store);
    const got = [...first!.urls.map((u) => u.url), ...(await crawlAll(f, restarted))];
    expect(got).toHaveLength(all.length);
    expect([...got].sort()).toEqual(all.map((u) => u.url).sort());
    expect(await store.count()).toBe(0);
    expect(await store.claimed(s)).toEqual([]);
    expect(await f.isIdle()).toBe(true);
  });
});
