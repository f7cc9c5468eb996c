import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier } from './frontier';
import { SpillFencedError } from './spill-fence';
import { SpillPump, type SpillPumpOptions } from './spill-pump';
import { SpillStore } from './spill-store';
import { frontierTestBed, testUrl } from './testing/frontier-test-kit';
import { spillTestDatabase } from './testing/spill-test-db';
import type { ClaimedBatch } from './spill-store';

/**
 * The refill fenced where the rows are: a pump holds the spill under an epoch in Postgres, a
 * takeover raises it, and a pump that lost its turn — paused mid-refill, then resumed — changes
 * nothing in Postgres or Redis and fails loudly. Every URL still comes out exactly once.
 */
const bed = frontierTestBed('spill-takeover');
const db = spillTestDatabase();
beforeAll(async () => {
  await bed.open();
  await db.open();
});
afterAll(async () => {
  await db.close();
  await bed.close();
});

function make(): { f: Frontier; store: SpillStore } {
  const prefix = bed.newPrefix();
  const f = new Frontier(bed.redis(), {
    prefix,
    shards: 2,
    leaseMs: 60_000,
    defaultGapMs: 0,
    headMax: 3,
    maxUrlsPerLease: 3,
  });
  return { f, store: new SpillStore(db.pool(), prefix) };
}

/** 3 hosts × 20 URLs in two tiers. */
const all = ['a.test', 'b.test', 'c.test'].flatMap((h) =>
  Array.from({ length: 20 }, (_, i) => testUrl(h, `p${i}`, { priority: i % 2 === 0 ? 0 : 5 })),
);

/** Lets the lease of the spill lapse (as if its owner stopped renewing 30 s ago). */
async function lapse(store: SpillStore, prefix: string): Promise<void> {
  await db
    .pool()
    .query(
      `UPDATE frontier_spill_owner SET lease_until = now() - interval '1 second' WHERE prefix = $1`,
      [prefix],
    );
  expect((await store.ownership()).owner).not.toBeNull();
}

/** A hook that pauses the pump at its first call, until `resume()`. */
function pauseOnce() {
  let paused!: (b: ClaimedBatch) => void;
  const reached = new Promise<ClaimedBatch>((r) => (paused = r));
  let resume!: () => void;
  const resumed = new Promise<void>((r) => (resume = r));
  let first = true;
  const hook = async (b: ClaimedBatch) => {
    if (!first) return;
    first = false;
    paused(b);
    await resumed;
  };
  return { hook, reached, resume };
}

/** Leases and completes until idle, draining `pump` before each lease; every URL leased. */
async function crawlAll(f: Frontier, pump: SpillPump, between?: () => Promise<void>) {
  const got: string[] = [];
  for (let i = 0; i < 1000 && !(await f.isIdle()); i++) {
    await pump.drain();
    for (const l of await f.lease('agent', 10)) {
      got.push(...l.urls.map((u) => u.url));
      await f.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 0 });
    }
    if (i === 0) await between?.();
  }
  return got;
}

describe('a spill pump taken over mid-refill', () => {
  it.each([
    ['after its claim, before the push', 'afterClaim'],
    ['after its push, before the confirm', 'afterPush'],
  ] as const)(
    'paused %s: the old pump changes nothing and fails; every URL comes out once',
    async (_when, hookName: keyof Pick<SpillPumpOptions, 'afterClaim' | 'afterPush'>) => {
      const { f, store } = make();
      await store.resetDataset('dataset-1', { clear: false });
      await f.enqueue(all);
      // Leases take the heads below the low-water mark: refills are wanted.
      const firsts = await f.lease('agent', 3);
      expect(firsts).toHaveLength(3);
      for (const l of firsts)
        await f.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 0 });

      const a = await store.acquire('coordinator-a', 'dataset-1', 30_000);
      expect(a).not.toBeNull();
      // Another coordinator cannot take it while A's lease lives.
      expect(await store.acquire('coordinator-b', 'dataset-1', 30_000)).toBeNull();
      const pause = pauseOnce();
      const oldPump = new SpillPump(f.spill, store, { epoch: a!.epoch, [hookName]: pause.hook });
      const oldRun = oldPump.drain().then(
        () => null,
        (err: unknown) => err,
      );
      const batch = await pause.reached;

      // A stops renewing (paused): its lease lapses and B takes over under a newer epoch.
      await lapse(store, f.keys.prefix);
      const b = await store.acquire('coordinator-b', 'dataset-1', 30_000);
      expect(b!.epoch).toBeGreaterThan(a!.epoch);
      expect(await store.renew(a!.epoch, 30_000)).toBe(false);
      const newPump = new SpillPump(f.spill, store, { epoch: b!.epoch });

      // B crawls; after its first round A wakes up and tries to go on.
      const got = [
        ...firsts.flatMap((l) => l.urls.map((u) => u.url)),
        ...(await crawlAll(f, newPump, async () => {
          pause.resume();
          expect(await oldRun).toBeInstanceOf(SpillFencedError);
        })),
      ];
      expect(await oldRun).toBeInstanceOf(SpillFencedError);
      expect(got).toHaveLength(all.length);
      expect(new Set(got).size).toBe(all.length);
      expect([...got].sort()).toEqual(all.map((u) => u.url).sort());
      expect(await store.count()).toBe(0);
      expect(await store.claimed(batch.shard)).toEqual([]);
      expect(await f.isIdle()).toBe(true);
    },
  );

  it('confirm fails loudly when its batch record is gone, and old epochs write nothing', async () => {
    const { f, store } = make();
    await store.resetDataset('dataset-2', { clear: false });
    const own = await store.acquire('coordinator-a', 'dataset-2', 30_000);
    await f.enqueue(all.slice(0, 20));
    const pump = new SpillPump(f.spill, store, { epoch: own!.epoch });
    const shard = f.shardOf('a.test');
    await pump.spillShard(shard);
    const before = await store.count();
    expect(before).toBeGreaterThan(0);
    await store.claim(own!.epoch, shard, 'batch-x', [{ host: 'a.test', tier: '0', want: 2 }]);
    await store.release(own!.epoch, 'batch-x');
    await expect(store.confirm(own!.epoch, 'batch-x')).rejects.toThrow(/no record/);
    // A rebuild after a Redis loss clears the spill and raises the epoch: the old one is fenced.
    expect(await store.resetDataset('dataset-3', { clear: true })).toBe(before);
    await expect(
      store.claim(own!.epoch, shard, 'batch-y', [{ host: 'a.test', tier: '0', want: 2 }]),
    ).rejects.toBeInstanceOf(SpillFencedError);
    await expect(f.spill.holdShard(shard, 'forget', own!.epoch + 99)).rejects.toBeInstanceOf(
      SpillFencedError,
    );
    // The rows are the new dataset's: a pump of the old one is refused its lease.
    expect(await store.acquire('coordinator-a', 'dataset-2', 30_000)).toBeNull();
    expect(await store.acquire('coordinator-a', 'dataset-3', 30_000)).not.toBeNull();
  });
});
