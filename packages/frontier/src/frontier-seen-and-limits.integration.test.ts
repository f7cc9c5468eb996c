import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  frontierTestBed,
  leaseWhenReady,
  readyScore,
  serverNow,
  sleep,
  testUrl,
} from './testing/frontier-test-kit';
import { randomBytes } from 'node:crypto';
import { connectRedis } from '@crawler/adapters/redis';
import { Frontier, type FrontierOptions } from './frontier';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
import type { HostLease } from './types';

/**
 * Frontier policies on the machine's Redis, part 2: the seen set and host limits — daily
 * budgets, per-IP leases, extend(), operator blocks and rate limits during a lease. Part 1 (fail,
 * dead letters, priority tiers, re-crawls) is frontier-policies.integration.test.ts.
 */
const DAY_MS = 86_400_000;
const bed = frontierTestBed('seen-limits');
const redis = bed.redis;
const make = bed.make;
const urls = (host: string, n: number) =>
  Array.from({ length: n }, (_, i) => testUrl(host, `p${i}`));
function only(leases: readonly HostLease[]): HostLease {
  expect(leases).toHaveLength(1);
  return leases[0]!;
}
const done = (l: HostLease, extra: { delayMs?: number; ip?: string } = {}) => ({
  processed: l.urls.length,
  delayMs: 0,
  paceMs: 1,
  ...extra,
});
/** `n` host names that map to one shard. */
function sameShard(f: Frontier, n: number, label: string): string[] {
  const groups = new Map<number, string[]>();
  for (let i = 0; ; i++) {
    const h = `${label}-${i}.test`;
    const g = groups.get(f.shardOf(h)) ?? [];
    g.push(h);
    groups.set(f.shardOf(h), g);
    if (g.length === n) return g;
  }
}
/** Leases and completes every host until none is ready; returns URLs fetched per host. */
async function drain(f: Frontier): Promise<Record<string, number>> {
  const got: Record<string, number> = {};
  for (let leases = await f.lease('a', 8); leases.length > 0; leases = await f.lease('a', 8)) {
    for (const l of leases) {
      got[l.host] = (got[l.host] ?? 0) + l.urls.length;
      await f.complete(l, done(l));
    }
  }
  return got;
}

/** Enqueues 3 URLs per host, leases each once and completes it with its IP: all ready again. */
async function prime(f: Frontier, hosts: string[], ips: string[]): Promise<void> {
  await f.enqueue(hosts.flatMap((h) => urls(h, 3)));
  const first = await f.lease('a', 8);
  expect(first).toHaveLength(hosts.length); // IPs still unknown: leased together
  for (const l of first) await f.complete(l, done(l, { ip: ips[hosts.indexOf(l.host)]! }));
}

beforeAll(() => bed.open());
afterAll(() => bed.close());

describe('daily budget', () => {
  it('gives a host at most its budget today, then schedules it for the next UTC day', async () => {
    const f = make({ dailyBudget: 5 });
    const host = 'budget.test';
    await f.enqueue(urls(host, 12));
    const l1 = only(await f.lease('a', 1));
    expect(l1.urls).toHaveLength(5);
    await f.complete(l1, { processed: 3, delayMs: 0, paceMs: 1 });
    const l2 = only(await f.lease('a', 1));
    expect(l2.urls.map((u) => u.url.slice(-2))).toEqual(['p3', 'p4']);
    await f.complete(l2, done(l2));
    expect(await f.lease('a', 1)).toEqual([]);
    const tomorrow = (Math.floor((await serverNow(redis())) / DAY_MS) + 1) * DAY_MS;
    expect(await readyScore(redis(), f, host)).toBeGreaterThanOrEqual(tomorrow);
    expect(await f.stats()).toMatchObject({ processedUrls: 5, queuedUrls: 7, readyHosts: 0 });
    expect((await f.hostState(host)).fields.budget_used).toBe('5');
  });

  it('is lifted at once by an allowlist', async () => {
    const f = make({ dailyBudget: 5 });
    const host = 'budget-allow.test';
    await f.enqueue(urls(host, 12));
    const l1 = only(await f.lease('a', 1));
    await f.complete(l1, done(l1));
    expect(await f.lease('a', 1)).toEqual([]); // spent: waits for tomorrow
    await f.setHostPolicy(host, { gapMs: null, blocked: false, allowlisted: true });
    const l2 = only(await f.lease('a', 1));
    expect(l2.urls).toHaveLength(7);
  });

  it('grows at once when the policy raises it after it ran out', async () => {
    const f = make({ dailyBudget: 5 });
    const host = 'budget-raise.test';
    await f.enqueue(urls(host, 12));
    const l1 = only(await f.lease('a', 1));
    await f.complete(l1, done(l1));
    expect(await f.lease('a', 1)).toEqual([]);
    await f.setHostPolicy(host, { gapMs: null, blocked: false, dailyBudget: 7 });
    expect(only(await f.lease('a', 1)).urls).toHaveLength(2);
  });

  it("is the host's own when its policy sets one (0 = none)", async () => {
    const f = make({ dailyBudget: 5 });
    const budgets = { 'budget-2.test': 2, 'budget-8.test': 8, 'budget-0.test': 0 };
    for (const [host, dailyBudget] of Object.entries(budgets)) {
      await f.setHostPolicy(host, { gapMs: null, blocked: false, dailyBudget });
      await f.enqueue(urls(host, 12));
    }
    await f.enqueue(urls('budget-default.test', 12));
    expect(await drain(f)).toEqual({
      'budget-2.test': 2,
      'budget-8.test': 8,
      'budget-0.test': 12,
      'budget-default.test': 5,
    });
  });
});

describe('per-IP politeness', () => {
  it('never leases two hosts of one IP at once', async () => {
    const f = make({ maxUrlsPerLease: 1 });
    const hosts = sameShard(f, 2, 'ip-one');
    await prime(f, hosts, ['10.0.0.7', '10.0.0.7']);
    const l1 = only(await f.lease('a', 8));
    expect(l1.ip).toBe('10.0.0.7');
    expect(await f.lease('a', 8)).toEqual([]);
    await sleep(300); // the other host's retry comes up while the IP is still busy
    expect(await f.lease('a', 8)).toEqual([]);
    await f.complete(l1, done(l1, { ip: '10.0.0.7', delayMs: 60_000 }));
    const l2 = only(await leaseWhenReady(f, 8));
    expect(l2.host).toBe(hosts.find((h) => h !== l1.host));
  });

  it('waits ipGapMs after one host of an IP before the next', async () => {
    const gap = 300;
    const f = make({ maxUrlsPerLease: 1, ipGapMs: gap });
    const hosts = sameShard(f, 2, 'ip-gap');
    await prime(f, hosts, ['10.0.0.8', '10.0.0.8']);
    const l1 = only(await leaseWhenReady(f, 8));
    await sleep(120); // fetching; the other host's retry falls inside the coming gap
    const ended = await serverNow(redis());
    await f.complete(l1, done(l1, { ip: '10.0.0.8', delayMs: 60_000 }));
    const l2 = only(await leaseWhenReady(f, 8));
    expect(l2.host).not.toBe(l1.host);
    expect((await serverNow(redis())) - ended).toBeGreaterThanOrEqual(gap);
  });

  it('leases hosts on different IPs together', async () => {
    const f = make({ maxUrlsPerLease: 1 });
    const hosts = sameShard(f, 2, 'ip-two');
    await prime(f, hosts, ['10.0.0.9', '10.0.0.10']);
    const both = await f.lease('a', 8);
    expect(both.map((l) => l.host).sort()).toEqual([...hosts].sort());
  });

  it('frees the old IP when a host completes from a new address', async () => {
    const f = make({ maxUrlsPerLease: 1 });
    const hosts = sameShard(f, 2, 'ip-move');
    await prime(f, hosts, ['10.0.1.1', '10.0.1.1']);
    const l1 = only(await f.lease('a', 8));
    // Its DNS changed while it was fetched: it connected to 10.0.1.2.
    await f.complete(l1, done(l1, { ip: '10.0.1.2', delayMs: 60_000 }));
    const l2 = only(await leaseWhenReady(f, 8, 1500));
    expect(l2.host).not.toBe(l1.host);
    expect(l2.ip).toBe('10.0.1.1');
  });
});

describe('extend()', () => {
  it('moves the deadline: an extended lease outlives its original one', async () => {
    const f = make({ leaseMs: 300 });
    const host = 'extend.test';
    await f.enqueue(urls(host, 2));
    const l = only(await f.lease('a', 1));
    const before = await serverNow(redis());
    expect(await f.extend(l, 1000)).toBe(true);
    const deadline = Number((await f.hostState(host)).fields.lease_deadline);
    expect(deadline).toBeGreaterThanOrEqual(before + 1000);
    await sleep(400); // past the original deadline
    expect(await f.reclaimExpired()).toBe(0);
    expect((await f.stats()).openLeases).toBe(1);
    expect(await f.lease('b', 1)).toEqual([]);
    expect(await f.complete(l, done(l))).toBe(true);
  });

  it('keeps the IP busy for the extended time', async () => {
    const f = make({ leaseMs: 300, maxUrlsPerLease: 1 });
    const hosts = sameShard(f, 2, 'extend-ip');
    await prime(f, hosts, ['10.0.2.1', '10.0.2.1']);
    const l = only(await f.lease('a', 8));
    expect(await f.extend(l, 2000)).toBe(true);
    await sleep(400);
    expect(await f.lease('a', 8)).toEqual([]); // the other host shares the IP
    expect(await f.complete(l, done(l, { ip: '10.0.2.1' }))).toBe(true);
  });

  it('refuses a stale lease', async () => {
    const f = make({ leaseMs: 100 });
    const host = 'extend-stale.test';
    await f.enqueue(urls(host, 2));
    const stale = only(await f.lease('a', 1));
    await sleep(150);
    expect(await f.reclaimExpired()).toBe(1);
    expect(await f.extend(stale, 60_000)).toBe(false);
    const fresh = only(await f.lease('b', 1));
    expect(await f.extend(stale, 60_000)).toBe(false);
    expect((await f.hostState(host)).fields.lease).toBe(fresh.leaseId);
    expect(await f.complete(fresh, done(fresh))).toBe(true);
  });
});

describe('operator changes during a lease', () => {
  it('a block while leased keeps the host out of the ready set until unblocked', async () => {
    const f = make();
    const host = 'block.test';
    await f.enqueue(urls(host, 3));
    const l = only(await f.lease('a', 1));
    await f.setHostPolicy(host, { gapMs: null, blocked: true });
    expect(await f.complete(l, { processed: 1, delayMs: 0, paceMs: 1 })).toBe(true);
    expect((await f.hostState(host)).queued).toBe(2);
    expect(await readyScore(redis(), f, host)).toBeNull();
    expect(await f.stats()).toMatchObject({ queuedUrls: 2, scheduledHosts: 0, openLeases: 0 });
    expect(await f.lease('a', 1)).toEqual([]);
    await f.setHostPolicy(host, { gapMs: null, blocked: false });
    expect(await readyScore(redis(), f, host)).not.toBeNull();
    expect(only(await f.lease('a', 1)).urls.map((u) => u.url.slice(-2))).toEqual(['p1', 'p2']);
  });

  it("a rate-limit change applies to the host's next lease", async () => {
    const f = make({ defaultGapMs: 1000 });
    const host = 'rate.test';
    await f.enqueue(urls(host, 30));
    const l1 = only(await f.lease('a', 1));
    expect(l1).toMatchObject({ gapMs: 1000 });
    expect(l1.urls).toHaveLength(10);
    await f.setHostPolicy(host, { gapMs: 20_000, blocked: false });
    await f.complete(l1, { processed: 10, delayMs: 0, paceMs: l1.gapMs });
    const l2 = only(await f.lease('a', 1));
    expect(l2.gapMs).toBe(20_000);
    expect(l2.urls).toHaveLength(1); // 60 s lease × 0.5 / 20 s
    await f.setHostPolicy(host, { gapMs: null, blocked: false });
    await f.complete(l2, { processed: 1, delayMs: 0, paceMs: 1000 });
    expect(only(await f.lease('a', 1)).gapMs).toBe(1000);
  });
});

describe('seen set', () => {
  const hostsOnAllShards = (f: Frontier, label: string) => {
    const hosts: string[] = [];
    for (let i = 0; hosts.length < f.shards; i++) {
      const h = `${label}-${i}.test`;
      if (hosts.every((x) => f.shardOf(x) !== f.shardOf(h))) hosts.push(h);
    }
    return hosts;
  };
  const randomFp = () => randomBytes(8).toString('hex');

  for (const seen of [undefined, { mode: 'set' as const }]) {
    it(`has no false negatives (${seen ? 'exact set' : 'Bloom, default'})`, async () => {
      const f = make(seen ? { seen } : {});
      const hosts = hostsOnAllShards(f, 'fn');
      const batch = Array.from({ length: 400 }, (_, i) =>
        testUrl(hosts[i % hosts.length]!, `u${i}`),
      );
      expect((await f.enqueue(batch)).accepted).toBe(400);
      expect((await f.seenBatch(batch)).every(Boolean)).toBe(true);
      expect((await f.enqueue(batch)).accepted).toBe(0);
      expect((await f.stats()).seenUrls).toBe(400);
    });
  }

  it('takes a 20,000-URL sitemap of one host in one call', async () => {
    // Its own connection: a failure here must not break the client the other tests share.
    const own = await connectRedis(REDIS_URL);
    try {
      const prefix = bed.newPrefix();
      const f = new Frontier(own, { prefix, shards: 4 });
      const many = Array.from({ length: 20_000 }, (_, i) => testUrl('sitemap.test', `p${i}`));
      await expect(f.enqueue(many)).resolves.toEqual({ accepted: 20_000 });
      expect(await f.stats()).toMatchObject({ seenUrls: 20_000, queuedUrls: 20_000 });
    } finally {
      own.disconnect();
    }
  });

  it('keeps the Bloom false-positive rate near theory', async () => {
    const [n, bits, k] = [20_000, 10, 7];
    const f = make({ seen: { mode: 'bloom', expectedUrls: n, bitsPerUrl: bits, hashes: k } });
    const hosts = hostsOnAllShards(f, 'bloom');
    const inserted = new Set<string>();
    while (inserted.size < n) inserted.add(randomFp());
    const entries = [...inserted].map((fp, i) => {
      const host = hosts[i % hosts.length]!;
      return { url: `http://${host}/${fp}`, urlFp: fp, host, depth: 0 };
    });
    const { accepted } = await f.enqueue(entries);
    expect(accepted).toBeGreaterThan(n * 0.98); // the rest were false positives on insert
    expect((await f.seenBatch(entries)).every(Boolean)).toBe(true);
    const probes: { urlFp: string; host: string }[] = [];
    while (probes.length < n) {
      const fp = randomFp();
      if (!inserted.has(fp)) probes.push({ urlFp: fp, host: hosts[probes.length % hosts.length]! });
    }
    const hits = (await f.seenBatch(probes)).filter(Boolean).length;
    const rate = hits / n;
    // The default target is twice the geometry's rate at its sizing and layer 0 may use half of
    // it, so layer 0 is the configured filter: a shard opens a second layer only once it holds
    // more than its share of the sizing. Theory: the layers as the scripts recorded them.
    const theory = await f.urls.seenSet.falsePositiveRate();
    const atSizing = (1 - Math.exp(-k / bits)) ** k;
    const target = 2 * atSizing;
    const layers = await Promise.all(hosts.map((h) => f.urls.seenSet.layers(f.shardOf(h))));
    console.log(
      `Bloom m=${f.bloomBits}×${f.shards} k=${k} n=${n}: ${hits} false positives in ${n} probes = ${(rate * 100).toFixed(3)}% (theory ${(theory * 100).toFixed(3)}%, target ${(target * 100).toFixed(3)}%, ${layers.map((l) => l.length).join('/')} layers)`,
    );
    for (const l of layers) {
      expect(Math.abs(l[0]!.capacity - n / f.shards)).toBeLessThanOrEqual(1);
      const urls = l.reduce((a, x) => a + x.urls, 0);
      expect(l).toHaveLength(urls > l[0]!.capacity ? 2 : 1);
    }
    expect(theory).toBeLessThan(target);
    expect(theory).toBeLessThan(atSizing * 1.25);
    expect((await f.stats()).seenFalsePositiveRate).toBeCloseTo(theory, 6);
    expect(rate).toBeLessThanOrEqual(theory * 1.5);
    expect(rate).toBeGreaterThanOrEqual(theory / 1.5);
  });

  it('checkLayout() refuses another shard count or Bloom size under the same prefix', async () => {
    const prefix = bed.newPrefix();
    const at = (o: Partial<FrontierOptions>) => new Frontier(redis(), { prefix, shards: 4, ...o });
    await expect(at({}).checkLayout()).resolves.toBeUndefined();
    await expect(at({}).checkLayout()).resolves.toBeUndefined();
    await expect(at({ shards: 8 }).checkLayout()).rejects.toThrow(/layout mismatch/);
    const bigger = { mode: 'bloom' as const, expectedUrls: 20_000_000 };
    await expect(at({ seen: bigger }).checkLayout()).rejects.toThrow(/layout mismatch/);
    await expect(at({ seen: { mode: 'bloom', hashes: 5 } }).checkLayout()).rejects.toThrow(
      /layout mismatch/,
    );
    await expect(at({ seen: { mode: 'set' } }).checkLayout()).rejects.toThrow(/layout mismatch/);
  });
});

describe('connections per host', () => {
  it('hands out the connections an operator allows with the lease, 1 otherwise', async () => {
    const f = make();
    await f.enqueue([...urls('conn-3.test', 2), ...urls('conn-1.test', 2)]);
    await f.setHostPolicy('conn-3.test', { gapMs: null, blocked: false, maxConnections: 3 });
    const byHost = new Map((await f.lease('a', 8)).map((l) => [l.host, l.maxConnections]));
    expect(Object.fromEntries(byHost)).toEqual({ 'conn-3.test': 3, 'conn-1.test': 1 });
  });
});

describe('domain-suffix policies', () => {
  it('a host first seen under a suffix takes its policy, the longest suffix winning per field', async () => {
    const f = make({ defaultGapMs: 1000 });
    await f.setSuffixPolicy('sfx.test', {
      gapMs: 4000,
      blocked: null,
      dailyBudget: 2,
      allowlisted: null,
      maxConnections: 3,
    });
    await f.setSuffixPolicy('deep.sfx.test', {
      gapMs: 8000,
      blocked: null,
      dailyBudget: null,
      allowlisted: null,
      maxConnections: null,
    });
    await f.enqueue([
      ...urls('sfx.test', 3),
      ...urls('a.deep.sfx.test', 3),
      ...urls('notsfx.test', 3),
    ]);
    const byHost = new Map((await f.lease('a', 8)).map((l) => [l.host, l]));
    expect(byHost.get('sfx.test')).toMatchObject({ gapMs: 4000 });
    expect(byHost.get('sfx.test')?.urls).toHaveLength(2); // the budget
    expect(byHost.get('a.deep.sfx.test')).toMatchObject({ gapMs: 8000, maxConnections: 3 });
    expect((await f.hostState('a.deep.sfx.test')).fields.daily_budget).toBe('2');
    expect(byHost.get('notsfx.test')).toMatchObject({ gapMs: 1000, maxConnections: 1 });
  });

  it('a blocked suffix keeps new hosts under it out of the ready set; removing it stops that', async () => {
    const f = make();
    await f.setSuffixPolicy('blocked-sfx.test', {
      gapMs: null,
      blocked: true,
      dailyBudget: null,
      allowlisted: null,
      maxConnections: null,
    });
    await f.enqueue(urls('x.blocked-sfx.test', 2));
    expect(await readyScore(redis(), f, 'x.blocked-sfx.test')).toBeNull();
    expect((await f.hostState('x.blocked-sfx.test')).queued).toBe(2);
    await f.setSuffixPolicy('blocked-sfx.test', null);
    await f.enqueue(urls('y.blocked-sfx.test', 2));
    expect(await readyScore(redis(), f, 'y.blocked-sfx.test')).not.toBeNull();
    // Hosts already known are found to be rewritten by the caller.
    expect((await f.knownHostsUnder('blocked-sfx.test')).sort()).toEqual([
      'x.blocked-sfx.test',
      'y.blocked-sfx.test',
    ]);
    expect(await f.knownHostsUnder('sfx.test')).not.toContain('x.blocked-sfx.test');
  });
});
