import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier } from './frontier';
import { SpillPump } from './spill-pump';
import { SpillStore } from './spill-store';
import { frontierTestBed, testUrl } from './testing/frontier-test-kit';
import { spillTestDatabase } from './testing/spill-test-db';

/**
 * Dead letters kept within bytes in Redis: each shard holds its share of
 * FRONTIER_DEAD_LETTER_MAX_BYTES and counts what it drops; a re-queue works a page of letters a
 * script call (one host's taken from anywhere in a long list, the rest kept in order), and puts
 * letters back through the head bound (the rest spill, as new URLs do).
 */
const bed = frontierTestBed('dead-letters');
const db = spillTestDatabase();
beforeAll(async () => {
  await bed.open();
  await db.open();
});
afterAll(async () => {
  await db.close();
  await bed.close();
});

const urls = (host: string, n: number) =>
  Array.from({ length: n }, (_, i) => testUrl(host, `p${i}`));

/** Parks `host` at its first lease: every URL it has becomes a dead letter (heads unbounded). */
async function park(f: Frontier, host: string): Promise<void> {
  const leases = await f.lease('a', 100);
  const l = leases.find((x) => x.host === host);
  expect(l, host).toBeDefined();
  for (const other of leases)
    await f.complete(other, {
      processed: 0,
      delayMs: 0,
      paceMs: 0,
      ...(other === l ? { parkReason: 'robots_5xx' } : {}),
    });
}

const deadFields = async (f: Frontier) => {
  const h = await bed.redis().hgetall(f.keys.stats(0));
  return { bytes: Number(h.dead_bytes ?? 0), cap: Number(h.dead_cap ?? 0) };
};

describe('dead letters', () => {
  it('keep within each shard’s byte cap and count what they drop', async () => {
    const f = bed.make({ shards: 1, headMax: 0, deadLetterMaxBytes: 6000 });
    await f.admin.applyLimits();
    await f.enqueue(urls('capped.test', 300));
    await park(f, 'capped.test');
    const kept = (await f.stats()).deadLetters;
    const dropped = (await f.deadLettersDroppedByReason()).robots_5xx ?? 0;
    expect(kept).toBeGreaterThan(20);
    expect(dropped).toBeGreaterThan(100);
    expect(kept + dropped).toBe(300);
    const { bytes, cap } = await deadFields(f);
    expect(cap).toBe(6000);
    expect(bytes).toBeLessThanOrEqual(6000);
    expect(bytes).toBeGreaterThan(6000 - 200);
    // A re-queue frees the bytes.
    expect(await f.requeueDeadLetters()).toBe(kept);
    expect(await deadFields(f)).toEqual({ bytes: 0, cap: 6000 });
  });

  it('re-queue one host from a long list page by page, keeping the others in order', async () => {
    const f = bed.make({ shards: 1, headMax: 0, maxUrlsPerLease: 5 });
    await f.enqueue([...urls('first.test', 1500), ...urls('second.test', 1500)]);
    await park(f, 'first.test');
    await park(f, 'second.test');
    const before = await f.deadLetterPage({ limit: 3000 });
    expect(before.items).toHaveLength(3000);
    // second.test's letters sit behind 1,500 of first.test's: more than one page of the script.
    expect(await f.requeueDeadLetters({ host: 'second.test' })).toBe(1500);
    const after = await f.deadLetterPage({ limit: 3000 });
    expect(after.items.map((d) => d.url)).toEqual(
      before.items.filter((d) => d.host === 'first.test').map((d) => d.url),
    );
    expect((await f.hostState('second.test')).queued).toBe(1500);
    // Without a host: in pages from the list's head, up to the limit.
    expect(await f.requeueDeadLetters({ limit: 1200 })).toBe(1200);
    expect(await f.requeueDeadLetters()).toBe(300);
    expect((await f.stats()).deadLetters).toBe(0);
    expect((await deadFields(f)).bytes).toBe(0);
  });

  it('re-queue through the head bound: what does not fit spills, and comes back once', async () => {
    const loose = bed.make({ shards: 1, headMax: 0, maxUrlsPerLease: 3 });
    const all = urls('back.test', 40);
    await loose.enqueue(all);
    await park(loose, 'back.test');
    expect((await loose.stats()).deadLetters).toBe(40);
    // The same frontier seen with heads of 3, and its spill pump.
    const f = new Frontier(bed.redis(), {
      prefix: loose.keys.prefix,
      shards: 1,
      leaseMs: 60_000,
      defaultGapMs: 0,
      headMax: 3,
      maxUrlsPerLease: 3,
    });
    const pump = new SpillPump(f.spill, new SpillStore(db.pool(), f.keys.prefix));
    expect(await f.requeueDeadLetters({ host: 'back.test' })).toBe(40);
    expect(await f.stats()).toMatchObject({ deadLetters: 0, queuedUrls: 40, spilledUrls: 37 });
    const got: string[] = [];
    for (let i = 0; i < 200 && !(await f.isIdle()); i++) {
      await pump.drain();
      for (const l of await f.lease('a', 10)) {
        got.push(...l.urls.map((u) => u.url));
        await f.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 0 });
      }
    }
    expect(got.sort()).toEqual(all.map((u) => u.url).sort());
  });
});
