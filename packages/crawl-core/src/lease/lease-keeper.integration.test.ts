import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier, type EnqueueUrl, type HostLease } from '@crawler/frontier';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { uniquePrefix } from '@crawler/testing';
import { urlFingerprint } from '@crawler/domain/url';
import { LeaseKeeper, type SettledOutputs } from './lease-keeper';

// The agent's side of short-lived leases, against the frontier on the machine's Redis: renewals
// keep leases alive past their TTL; a lease whose renewals fail stops starting requests before
// it can expire; progress marks are written only after the outputs they depend on, and a
// reclaimed lease then returns only the URLs not done.
const log = createLogger('lease-keeper', 'silent');
const prefixes: string[] = [];
let redis: RedisClient;

beforeAll(async () => {
  redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
  redis.disconnect();
});

function frontier(client: RedisClient, ttlMs: number): Frontier {
  const prefix = uniquePrefix('keeper');
  prefixes.push(prefix);
  return new Frontier(client, {
    prefix,
    shards: 2,
    leaseMs: 60_000,
    leaseTtlMs: ttlMs,
    defaultGapMs: 0,
  });
}
const urls = (host: string, n: number): EnqueueUrl[] =>
  Array.from({ length: n }, (_, i) => {
    const url = `http://${host}/p${i}`;
    return { url, urlFp: urlFingerprint(url), host, depth: 0, source: 'seed' };
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Outputs that settle only when the test says so. */
function gate(): SettledOutputs & { open(): void } {
  let opened = false;
  const waiting: Array<() => void> = [];
  return {
    settled: () => (opened ? Promise.resolve() : new Promise<void>((r) => waiting.push(r))),
    open() {
      opened = true;
      for (const w of waiting.splice(0)) w();
    },
  };
}
async function leaseOne(f: Frontier, host: string, n: number): Promise<[HostLease, number]> {
  await f.enqueue(urls(host, n));
  const askedAt = performance.now();
  const [lease] = await f.lease('agent-1', 1);
  expect(lease?.host).toBe(host);
  return [lease!, askedAt];
}

describe('LeaseKeeper', () => {
  it('renewals keep a lease alive well past its TTL', async () => {
    const f = frontier(redis, 1600);
    const keeper = new LeaseKeeper(f, [], { requestMs: 100, renewEveryMs: 150, log });
    const [lease, askedAt] = await leaseOne(f, 'renewed.test', 2);
    keeper.hold(lease, askedAt);
    keeper.start();
    try {
      await sleep(3000);
      expect(await f.reclaimExpired()).toBe(0);
      expect(keeper.mayStart(lease)).toBe(true);
      expect(keeper.counts.renewals).toBeGreaterThanOrEqual(10);
      expect(await f.complete(lease, { processed: 2, delayMs: 0, paceMs: 1 })).toBe(true);
    } finally {
      keeper.release(lease);
      await keeper.stop();
    }
  });

  it('stops starting requests before an unrenewed lease can expire, and sees it lost', async () => {
    const own = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const f = frontier(own, 1500);
    const keeper = new LeaseKeeper(f, [], { requestMs: 200, renewEveryMs: 100, log });
    const [lease, askedAt] = await leaseOne(f, 'unrenewed.test', 2);
    keeper.hold(lease, askedAt);
    keeper.start();
    try {
      await sleep(300);
      expect(keeper.mayStart(lease)).toBe(true);
      own.disconnect(); // renewals fail from now on
      const cutAt = performance.now();
      while (keeper.mayStart(lease)) await sleep(10);
      const stoppedAt = performance.now();
      // It stops while the lease still has a request's life (and the margin) ahead of it.
      expect(stoppedAt - cutAt).toBeLessThan(1500);
      // The frontier's deadline (Redis time) is later than the moment the keeper stopped.
      const deadline = Number(await redis.zscore(f.keys.leases(lease.shard), lease.leaseId));
      const [s, us] = await redis.time();
      const redisNow = Number(s) * 1000 + Math.floor(Number(us) / 1000);
      expect(deadline - redisNow).toBeGreaterThan(200);
    } finally {
      keeper.release(lease);
      await keeper.stop();
      own.disconnect();
    }
    // A lease released by an operator is seen as lost at the next renewal.
    const f2 = frontier(redis, 60_000);
    const k2 = new LeaseKeeper(f2, [], { requestMs: 100, renewEveryMs: 50, log });
    const [l2, at2] = await leaseOne(f2, 'released.test', 1);
    k2.hold(l2, at2);
    k2.start();
    try {
      expect(await f2.releaseLeasesOf('agent-1')).toBe(1);
      await k2.renewAll();
      expect(k2.mayStart(l2)).toBe(false);
      expect(k2.counts.lost).toBe(1);
    } finally {
      k2.release(l2);
      await k2.stop();
    }
  });

  it('after the connection drops, starts nothing until the frontier confirms the lease again', async () => {
    // A Redis that restarts on an AOF missing its last second has forgotten leases granted in
    // that second; the host may be leased again at once. Stand-in for the forgetting: the
    // lease is released over another connection while the keeper's connection is down.
    const own = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const f = frontier(own, 60_000);
    const keeper = new LeaseKeeper(f, [], { requestMs: 100, renewEveryMs: 60_000, log });
    keeper.watch(own);
    const dropConnection = async (meanwhile?: () => Promise<unknown>) => {
      const id = Number(await own.client('ID'));
      const back = new Promise<void>((resolve) => own.once('ready', () => resolve()));
      await redis.client('KILL', 'ID', String(id));
      await meanwhile?.();
      await back;
    };
    try {
      const [lease, askedAt] = await leaseOne(f, 'reconnected.test', 2);
      keeper.hold(lease, askedAt);
      expect(keeper.mayStart(lease)).toBe(true);
      await dropConnection();
      expect(keeper.mayStart(lease)).toBe(false); // unconfirmed: no request may start
      expect(await keeper.mayStartConfirmed(lease)).toBe(true); // the renewal confirmed it
      expect(keeper.mayStart(lease)).toBe(true);
      keeper.release(lease);

      const [gone, at2] = await leaseOne(f, 'forgotten.test', 2);
      keeper.hold(gone, at2);
      await dropConnection(() => f.releaseLeasesOf('agent-1'));
      expect(await keeper.mayStartConfirmed(gone)).toBe(false);
      expect(keeper.counts.lost).toBe(1);
      keeper.release(gone);
    } finally {
      await keeper.stop();
      own.disconnect();
    }
  });

  it('writes progress marks only once their outputs are in Redis; a reclaim keeps them', async () => {
    const f = frontier(redis, 400);
    const outputs = gate();
    const keeper = new LeaseKeeper(f, [outputs], {
      requestMs: 10,
      renewEveryMs: 60_000,
      progressDelayMs: 5,
      log,
    });
    const [lease, askedAt] = await leaseOne(f, 'progress.test', 4);
    keeper.hold(lease, askedAt);
    keeper.done(lease, 0);
    keeper.done(lease, 2);
    await sleep(50);
    expect(keeper.inFlight).toBe(2);
    expect(keeper.counts.marksWritten).toBe(0);
    outputs.open();
    await keeper.flushMarks();
    expect(keeper.counts.marksWritten).toBe(2);
    expect(keeper.inFlight).toBe(0);
    // The agent dies: the lease expires and comes back without URLs 0 and 2.
    await sleep(450);
    expect(await f.reclaimExpired()).toBe(1);
    const [again] = await f.lease('agent-2', 1);
    expect(again?.urls.map((u) => u.url)).toEqual([lease.urls[1]!.url, lease.urls[3]!.url]);
    keeper.release(lease);
    await keeper.stop();
  });

  it('end() retries while Redis is away and the lease may still be current', async () => {
    const f = frontier(redis, 5000);
    const keeper = new LeaseKeeper(f, [], { requestMs: 10, renewEveryMs: 60_000, log });
    const [lease, askedAt] = await leaseOne(f, 'end-retry.test', 1);
    keeper.hold(lease, askedAt);
    let calls = 0;
    const ok = await keeper.end(lease, async () => {
      calls++;
      if (calls < 3) throw new Error('Connection is closed.');
      return f.complete(lease, { processed: 1, delayMs: 0, paceMs: 1 });
    });
    expect(ok).toBe(true);
    expect(calls).toBe(3);
    keeper.release(lease);
    // Not held any more (or surely expired): the error is thrown at once.
    await expect(
      keeper.end(lease, () => Promise.reject(new Error('Connection is closed.'))),
    ).rejects.toThrow('Connection is closed.');
    await keeper.stop();
  });
});
