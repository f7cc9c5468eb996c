import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  frontierTestBed,
  leaseWhenReady,
  readyScore,
  serverNow,
  sleep,
  testUrl,
} from './testing/frontier-test-kit';
import { Frontier } from './frontier';
import type { EnqueueUrl, HostLease, LeasedUrl } from './types';

/**
 * Frontier policies on the machine's Redis, part 1: fail() and backoff, dead letters, priority
 * tiers, re-crawls. Part 2 (seen set, daily budgets, per-IP leases, extend, operator changes) is
 * frontier-seen-and-limits.integration.test.ts.
 */
const bed = frontierTestBed('policies');
const redis = bed.redis;
const make = bed.make;
function only(leases: readonly HostLease[]): HostLease {
  expect(leases).toHaveLength(1);
  return leases[0]!;
}
const paths = (l: HostLease) => l.urls.map((u) => u.url.replace(/^http:\/\/[^/]+\//, ''));
function tiers(urls: readonly LeasedUrl[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const u of urls) out[u.tier] = (out[u.tier] ?? 0) + 1;
  return out;
}

beforeAll(() => bed.open());
afterAll(() => bed.close());

describe('fail()', () => {
  it('retries the failed URL first, backs off exponentially (Retry-After wins), resets on success, dead-letters at the limit', async () => {
    const f = make({ maxUrlsPerLease: 5, backoffBaseMs: 100, maxAttempts: 3 });
    const host = 'fail.test';
    await f.enqueue(Array.from({ length: 6 }, (_, i) => testUrl(host, `p${i}`)));
    const l1 = only(await f.lease('a', 1));
    expect(paths(l1)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);

    // p0, p1 done; p2 failed: back at the head with attempts 1; the host waits base × 2^0.
    const t0 = await serverNow(redis());
    expect(await f.fail(l1, { index: 2, error: '5xx' })).toEqual({
      returned: 3,
      deadLettered: false,
      delayMs: 100,
    });
    const t1 = await serverNow(redis());
    expect(await f.stats()).toMatchObject({ processedUrls: 2, queuedUrls: 4, openLeases: 0 });
    const score = (await readyScore(redis(), f, host))!;
    expect(score).toBeGreaterThanOrEqual(t0 + 100);
    expect(score).toBeLessThanOrEqual(t1 + 100);
    expect(await f.lease('a', 1)).toEqual([]);
    const l2 = only(await leaseWhenReady(f));
    expect(await serverNow(redis())).toBeGreaterThanOrEqual(t0 + 100);
    expect(l2.urls.map((u) => [u.url.slice(-2), u.attempts])).toEqual([
      ['p2', 1],
      ['p3', 0],
      ['p4', 0],
      ['p5', 0],
    ]);

    // Second consecutive failure: base × 2 = 200 ms beats a smaller Retry-After.
    expect(await f.fail(l2, { index: 0, error: 'timeout', retryAfterMs: 50 })).toEqual({
      returned: 4,
      deadLettered: false,
      delayMs: 200,
    });
    expect((await f.hostState(host)).fields.errors).toBe('2');
    const l3 = only(await leaseWhenReady(f));
    expect(l3.urls[0]).toMatchObject({ url: 'http://fail.test/p2', attempts: 2 });

    // Third: backoff 400 ms, but a larger Retry-After (500 ms) wins; p2 hits the attempt limit.
    const t3 = await serverNow(redis());
    expect(await f.fail(l3, { index: 0, error: '503', retryAfterMs: 500 })).toEqual({
      returned: 3,
      deadLettered: true,
      delayMs: 500,
    });
    expect(await readyScore(redis(), f, host)).toBeGreaterThanOrEqual(t3 + 500);
    const dead = await f.deadLetters();
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ host, url: 'http://fail.test/p2', reason: '503', attempts: 3 });
    expect(await f.stats()).toMatchObject({ deadLetters: 1, queuedUrls: 3 });

    // A successful complete resets the error count: the next failure waits the base again.
    const l4 = only(await leaseWhenReady(f));
    expect(paths(l4)).toEqual(['p3', 'p4', 'p5']);
    expect(await f.complete(l4, { processed: 1, delayMs: 0, paceMs: 1 })).toBe(true);
    expect((await f.hostState(host)).fields.errors).toBe('0');
    const l5 = only(await f.lease('a', 1));
    expect(paths(l5)).toEqual(['p4', 'p5']);
    expect((await f.fail(l5, { index: 0, error: '5xx' }))?.delayMs).toBe(100);
    expect(await f.stats()).toMatchObject({ deadLetters: 1, queuedUrls: 2, processedUrls: 3 });
  });

  it('ignores the fail of a stale (reclaimed) lease', async () => {
    const f = make({ leaseMs: 150 });
    const host = 'stale-fail.test';
    await f.enqueue([testUrl(host, '1'), testUrl(host, '2')]);
    const stale = only(await f.lease('slow', 1));
    await sleep(200);
    expect(await f.reclaimExpired()).toBe(1);
    const snapshot = async () => ({
      host: await f.hostState(host),
      stats: await f.stats(),
      score: await readyScore(redis(), f, host),
      dead: await f.deadLetters(),
    });
    const before = await snapshot();
    expect(await f.fail(stale, { index: 1, error: 'timeout', retryAfterMs: 60_000 })).toBeNull();
    expect(await snapshot()).toEqual(before);
    const fresh = only(await f.lease('b', 1));
    expect(fresh.urls.map((u) => u.attempts)).toEqual([0, 0]);
    // Also when the host has been leased again meanwhile: the fresh lease stays intact.
    expect(await f.fail(stale, { index: 0, error: 'timeout' })).toBeNull();
    expect((await f.hostState(host)).fields.lease).toBe(fresh.leaseId);
    expect(await f.complete(fresh, { processed: 2, delayMs: 0, paceMs: 1 })).toBe(true);
  });

  it('keeps the error count of a host leased beyond maxHosts and handed back unfetched', async () => {
    const f = make({ shards: 2, maxUrlsPerLease: 1, backoffBaseMs: 50 });
    const names = Array.from({ length: 20 }, (_, i) => `back-${i}.test`);
    const [x, y] = names.filter((h) => f.shardOf(h) === 1);
    const [p, q] = names.filter((h) => f.shardOf(h) === 0);
    if (!x || !y || !p || !q) throw new Error('host names for shards 0 and 1');
    await f.enqueue([testUrl(x, '1'), testUrl(x, '2')]);
    await f.fail(only(await f.lease('a', 1)), { index: 0, error: '5xx' });
    await f.enqueue([testUrl(y, '1'), testUrl(p, '1'), testUrl(q, '1')]);
    await sleep(60);
    // A new client asks shards 0, 1 for 2 hosts each: x (the latest score of shard 1) is one
    // too many and is handed back unfetched. That is no success: x keeps its error count.
    const fresh = new Frontier(redis(), { prefix: f.keys.prefix, shards: 2, maxUrlsPerLease: 1 });
    expect((await fresh.lease('b', 3)).map((l) => l.host).sort()).toEqual([p, q, y].sort());
    expect((await f.hostState(x)).fields.errors).toBe('1');
  });
});

describe('deadLetterPage()', () => {
  it('pages through every shard without loss or repeat, and filters one host', async () => {
    const f = make({ shards: 4, maxAttempts: 1 });
    const hosts = Array.from({ length: 6 }, (_, i) => `dlp-${i}.test`);
    // Every URL of every host is dead-lettered: parked hosts send new URLs straight there.
    await f.enqueue(hosts.map((h) => testUrl(h, '0')));
    for (const l of await f.lease('x', 6))
      await f.complete(l, {
        processed: 0,
        delayMs: 0,
        paceMs: 1,
        parkReason: 'robots_unavailable',
      });
    await f.enqueue(hosts.flatMap((h) => [1, 2, 3].map((i) => testUrl(h, String(i)))));
    const all = (await f.deadLetters(1000)).map((d) => d.url).sort();
    expect(all).toHaveLength(24);

    const seen: string[] = [];
    let from: { shard: number; offset: number } | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await f.deadLetterPage({ limit: 5, ...(from ? { from } : {}) });
      expect(page.items.length).toBeLessThanOrEqual(5);
      seen.push(...page.items.map((d) => d.url));
      if (!page.next) break;
      from = page.next;
    }
    expect(seen.sort()).toEqual(all);

    const one = await f.deadLetterPage({ limit: 3, host: hosts[2]! });
    expect(one.items.map((d) => d.url)).toEqual([0, 1, 2].map((i) => `http://${hosts[2]}/${i}`));
    const rest = await f.deadLetterPage({ limit: 3, host: hosts[2]!, from: one.next! });
    expect(rest.items.map((d) => d.url)).toEqual([`http://${hosts[2]}/3`]);
  });
});

describe('requeueDeadLetters()', () => {
  it('re-queues one host or all, resets attempts, un-parks, and keeps stats consistent', async () => {
    const f = make({ shards: 1, maxAttempts: 1, backoffBaseMs: 10 });
    const [a, b] = ['dl-a.test', 'dl-b.test'];
    await f.enqueue([
      testUrl(a, '1'),
      testUrl(a, '2'),
      testUrl(b, '1'),
      testUrl(b, '2'),
      testUrl(b, '3'),
    ]);
    const leases = await f.lease('x', 2);
    const la = leases.find((l) => l.host === a)!;
    const lb = leases.find((l) => l.host === b)!;
    expect((await f.fail(la, { index: 0, error: 'dns' }))?.deadLettered).toBe(true);
    await f.complete(lb, { processed: 1, delayMs: 0, paceMs: 1, parkReason: 'robots_unavailable' });
    expect(await f.stats()).toMatchObject({ deadLetters: 3, queuedUrls: 1, scheduledHosts: 1 });
    expect((await f.hostState(b)).fields.parked).toBe('1');
    expect((await f.deadLetters()).map((d) => [d.url, d.reason, d.attempts]).sort()).toEqual([
      ['http://dl-a.test/1', 'dns', 1],
      ['http://dl-b.test/2', 'robots_unavailable', 0],
      ['http://dl-b.test/3', 'robots_unavailable', 0],
    ]);

    // One host: b's two letters come back, b is un-parked and leasable; a's letter stays.
    expect(await f.requeueDeadLetters({ host: b })).toBe(2);
    expect(await f.stats()).toMatchObject({ deadLetters: 1, queuedUrls: 3, scheduledHosts: 2 });
    expect((await f.hostState(b)).fields.parked).toBeUndefined();
    expect((await f.deadLetters()).map((d) => d.url)).toEqual(['http://dl-a.test/1']);
    // New URLs of b are queued again, not dead-lettered.
    expect((await f.enqueue([testUrl(b, '4')])).accepted).toBe(1);
    expect(await f.stats()).toMatchObject({ deadLetters: 1, queuedUrls: 4 });
    await sleep(15); // a's backoff
    const again = await f.lease('x', 2);
    const lb2 = again.find((l) => l.host === b)!;
    expect(lb2.urls.map((u) => [u.url.slice(-1), u.attempts])).toEqual([
      ['2', 0],
      ['3', 0],
      ['4', 0],
    ]);
    for (const l of again) await f.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 1 });
    expect(await f.stats()).toMatchObject({ deadLetters: 1, queuedUrls: 0, openLeases: 0 });

    // All: a's letter returns with attempts reset.
    expect(await f.requeueDeadLetters()).toBe(1);
    expect(await f.stats()).toMatchObject({ deadLetters: 0, queuedUrls: 1 });
    expect(await f.deadLetters()).toEqual([]);
    const la2 = only(await f.lease('x', 2));
    expect(la2.urls.map((u) => [u.url, u.attempts])).toEqual([['http://dl-a.test/1', 0]]);
  });

  it('re-queuing one host keeps every other dead letter of the shard, however many', async () => {
    const f = make({ shards: 1 });
    const [big, small] = ['dl-big.test', 'dl-small.test'];
    await f.enqueue([testUrl(big, 'first'), testUrl(small, 'first')]);
    for (const l of await f.lease('x', 2))
      await f.complete(l, {
        processed: 0,
        delayMs: 0,
        paceMs: 1,
        parkReason: 'robots_unavailable',
      });
    // A parked host's new URLs go straight to dead letters: 9,000 of them.
    const many = Array.from({ length: 9000 }, (_, i) => testUrl(big, `p${i}`));
    expect((await f.enqueue(many)).accepted).toBe(9000);
    expect((await f.stats()).deadLetters).toBe(9002);
    await f.requeueDeadLetters({ host: small }).catch(() => 0);
    // Whatever the call reports, no dead letter of the other host may be lost.
    expect((await f.stats()).deadLetters).toBe(9001);
    expect(await redis().llen(f.keys.dead(0))).toBe(9001);
  });

  it('a requeued re-crawl never duplicates one enqueued since it was dead-lettered', async () => {
    const f = make({ maxAttempts: 1, backoffBaseMs: 10 });
    const rc = testUrl('dl-recrawl.test', 'page', { source: 'recrawl' });
    expect((await f.enqueue([rc])).accepted).toBe(1);
    const l = only(await f.lease('x', 1));
    expect((await f.fail(l, { index: 0, error: '5xx' }))?.deadLettered).toBe(true);
    await f.enqueue([rc]); // the re-crawl scheduler's next turn for this URL
    await f.requeueDeadLetters();
    const l2 = only(await leaseWhenReady(f));
    // Invariant 3: a url_fp is in the frontier at most once at a time.
    expect(l2.urls.map((u) => u.urlFp)).toEqual([rc.urlFp]);
    expect((await f.stats()).queuedUrls).toBe(0);
  });
});

describe('priority tiers', () => {
  const enqueueTiers = (f: Frontier, host: string, perTier: number, tierList = [0, 1, 2, 3]) =>
    f.enqueue(
      tierList.flatMap((t) =>
        Array.from({ length: perTier }, (_, i) => testUrl(host, `t${t}-${i}`, { priority: t })),
      ),
    );

  it('mixes a batch 8,4,2,1 over 15 slots (weights 512,256,128,64), in queue order within a tier', async () => {
    const f = make({ maxUrlsPerLease: 15 });
    await enqueueTiers(f, 'tiers.test', 20);
    for (let round = 0; round < 2; round++) {
      const l = only(await f.lease('a', 1));
      expect(tiers(l.urls)).toEqual({ 0: 8, 1: 4, 2: 2, 3: 1 });
      expect(paths(l).filter((p) => p.startsWith('t0-'))).toEqual(
        Array.from({ length: 8 }, (_, i) => `t0-${round * 8 + i}`),
      );
      await f.complete(l, { processed: 15, delayMs: 0, paceMs: 1 });
    }
  });

  it('gives a lone low tier every slot', async () => {
    const f = make({ maxUrlsPerLease: 15 });
    await enqueueTiers(f, 'lone.test', 20, [3]);
    const l = only(await f.lease('a', 1));
    expect(tiers(l.urls)).toEqual({ 3: 15 });
  });

  it('lets tier 3 progress while tier 0 is never empty', async () => {
    const f = make({ maxUrlsPerLease: 4 });
    const host = 'starve.test';
    await enqueueTiers(f, host, 10, [0, 3]);
    const q0 = `${f.keys.shard(f.shardOf(host))}q0:${host}`;
    const leased3: string[] = [];
    for (let round = 0; round < 15; round++) {
      // Tier 0 is refilled faster than a batch can drain it.
      await f.enqueue(
        Array.from({ length: 4 }, (_, i) => testUrl(host, `t0-${round}-${i}`, { priority: 0 })),
      );
      const l = only(await f.lease('a', 1));
      expect(l.urls).toHaveLength(4);
      leased3.push(...paths(l).filter((p) => p.startsWith('t3-')));
      await f.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 1 });
      // Waiting in tier 0: its head in Redis and its URLs spilled past the head (s0).
      const spilled0 = Number((await f.hostState(host)).fields.s0 ?? 0);
      expect((await redis().llen(q0)) + spilled0).toBeGreaterThanOrEqual(10);
    }
    // Tier 3's share is its weight over the waiting tiers' (64 / (512 + 64) = 1/9): of 60 slots
    // the 5th, 14th, 23rd, … — 7 in all, in queue order.
    expect(leased3).toEqual(Array.from({ length: 7 }, (_, i) => `t3-${i}`));
  });
});

describe('re-crawls', () => {
  it('get their share of batches on average when both kinds wait', async () => {
    const f = make({ maxUrlsPerLease: 7, recrawlShare: 0.6 });
    const host = 'share.test';
    await f.enqueue([
      ...Array.from({ length: 80 }, (_, i) => testUrl(host, `d${i}`)),
      ...Array.from({ length: 80 }, (_, i) => testUrl(host, `r${i}`, { source: 'recrawl' })),
    ]);
    const perBatch: number[] = [];
    for (let round = 0; round < 10; round++) {
      const l = only(await f.lease('a', 1));
      expect(l.urls).toHaveLength(7);
      const r = l.urls.filter((u) => u.tier === 'r');
      expect(r.every((u) => u.source === 'recrawl')).toBe(true);
      perBatch.push(r.length);
      await f.complete(l, { processed: 7, delayMs: 0, paceMs: 1 });
    }
    console.log(`re-crawls per batch of 7 at share 0.6: ${perBatch.join(',')}`);
    expect(perBatch.every((n) => n === 4 || n === 5)).toBe(true); // 7 × 0.6 = 4.2
    const total = perBatch.reduce((a, n) => a + n, 0);
    expect(Math.abs(total - 0.6 * 70)).toBeLessThanOrEqual(1);
  });

  it('are accepted once while waiting or leased, again after completion, and bypass the seen set', async () => {
    const f = make();
    const host = 'rc.test';
    const known = testUrl(host, 'known');
    const rc: EnqueueUrl = { ...known, source: 'recrawl' };
    expect((await f.enqueue([known])).accepted).toBe(1);
    await f.complete(only(await f.lease('a', 1)), { processed: 1, delayMs: 0, paceMs: 1 });
    expect((await f.enqueue([known])).accepted).toBe(0); // seen
    expect((await f.enqueue([rc])).accepted).toBe(1); // known, but a re-crawl
    expect((await f.enqueue([rc])).accepted).toBe(0); // already waiting
    const l1 = only(await f.lease('a', 1));
    expect(l1.urls).toMatchObject([{ urlFp: known.urlFp, tier: 'r', source: 'recrawl' }]);
    expect((await f.enqueue([rc])).accepted).toBe(0); // leased
    // Handed back unprocessed (processed 0): it waits again, so still not accepted.
    await f.complete(l1, { processed: 0, delayMs: 0, paceMs: 1 });
    expect((await f.enqueue([rc])).accepted).toBe(0);
    const l2 = only(await f.lease('a', 1));
    await f.complete(l2, { processed: 1, delayMs: 0, paceMs: 1 });
    expect((await f.enqueue([rc])).accepted).toBe(1); // done: may be re-crawled again
    // Failed at its own index 0 (retried later): still waiting, so still not accepted.
    const l3 = only(await f.lease('a', 1));
    expect((await f.fail(l3, { index: 0, error: 'timeout' }))?.returned).toBe(1);
    expect((await f.enqueue([rc])).accepted).toBe(0);
  });

  it('mark their url_fp seen, so a link to a waiting re-crawl is not queued twice', async () => {
    const f = make();
    const link = testUrl('rc-seen.test', 'page');
    expect((await f.enqueue([{ ...link, source: 'recrawl' }])).accepted).toBe(1);
    await f.enqueue([link]);
    expect(await f.seenBatch([link])).toEqual([true]);
    expect((await f.stats()).queuedUrls).toBe(1);
  });
});
