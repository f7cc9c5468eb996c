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
import { FrontierInputError } from './priority';
import type { EnqueueUrl, HostLease } from './types';

/**
 * Priorities on the machine's Redis: URL priorities 0–9 within a host (tiers q0…q9 and their
 * weights), and host priority classes across hosts (seeds, in-links from other sites, demotion),
 * which order due hosts without ever making one due early.
 */
const bed = frontierTestBed('priority');
const redis = bed.redis;
const make = bed.make;
const paths = (l: HostLease) => l.urls.map((u) => u.url.replace(/^http:\/\/[^/]+\//, ''));
function only(leases: readonly HostLease[]): HostLease {
  expect(leases).toHaveLength(1);
  return leases[0]!;
}
const done = (f: Frontier, l: HostLease, delayMs = 0) =>
  f.complete(l, { processed: l.urls.length, delayMs, paceMs: 1 });
/** A link to `host` found on a page of `fromHost` (the same URL each time: seen after the first). */
const link = (host: string, fromHost: string, path = 'linked'): EnqueueUrl =>
  testUrl(host, path, { source: 'link', fromHost });
const seed = (host: string, priority: number, path = 'seed'): EnqueueUrl =>
  testUrl(host, path, { source: 'seed', priority });

beforeAll(() => bed.open());
afterAll(() => bed.close());

describe('URL priorities 0–9 within a host', () => {
  it('hands out priorities 0, 5 and 9 in that order, in one batch or one URL at a time', async () => {
    for (const maxUrlsPerLease of [10, 1]) {
      const f = make({ maxUrlsPerLease });
      const host = 'order.test';
      // Enqueued lowest first: the order comes from the priorities, not from arrival.
      await f.enqueue([9, 5, 0].map((p) => testUrl(host, `p${p}`, { priority: p })));
      const got: string[] = [];
      for (let l = await f.lease('a', 1); l.length > 0; l = await f.lease('a', 1)) {
        got.push(...only(l).urls.map((u) => `${u.tier}:${u.url.slice(-2)}`));
        await done(f, l[0]!);
      }
      expect(got, `batches of ${maxUrlsPerLease}`).toEqual(['0:p0', '5:p5', '9:p9']);
    }
  });

  it('gives each waiting tier its weight’s share, however full tier 0 stays', async () => {
    // Default weights: 512 for tier 0, 16 for tier 5, 1 for tier 9 — 529 slots hold each tier
    // exactly its weight (smooth weighted round-robin over the waiting tiers).
    const f = make({ maxUrlsPerLease: 23 });
    const host = 'share.test';
    const urls = (p: number, n: number) =>
      Array.from({ length: n }, (_, i) => testUrl(host, `t${p}-${i}`, { priority: p }));
    await f.enqueue([...urls(0, 600), ...urls(5, 30), ...urls(9, 5)]);
    const counts: Record<string, number> = {};
    for (let round = 0; round < 23; round++) {
      const l = only(await f.lease('a', 1));
      for (const u of l.urls) counts[u.tier] = (counts[u.tier] ?? 0) + 1;
      // Within a tier, queue order.
      for (const p of [0, 5, 9]) {
        const got = paths(l).filter((x) => x.startsWith(`t${p}-`));
        expect(got).toEqual([...got].sort((a, b) => Number(a.slice(3)) - Number(b.slice(3))));
      }
      await done(f, l);
    }
    expect(counts).toEqual({ 0: 512, 5: 16, 9: 1 });
  });

  it('follows the configured weights', async () => {
    const f = make({ maxUrlsPerLease: 9, tierWeights: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1] });
    const host = 'even.test';
    await f.enqueue(
      [0, 5, 9].flatMap((p) =>
        Array.from({ length: 5 }, (_, i) => testUrl(host, `t${p}-${i}`, { priority: p })),
      ),
    );
    const l = only(await f.lease('a', 1));
    expect(l.urls.map((u) => u.tier).join('')).toBe('000555999');
  });

  it('refuses a priority that is not an integer 0–9, writing nothing', async () => {
    const f = make();
    for (const priority of [10, -1, 2.5, Number.NaN]) {
      const call = f.enqueue([
        testUrl('ok.test', 'a'),
        testUrl('bad.test', `p${priority}`, { priority }),
      ]);
      await expect(call).rejects.toBeInstanceOf(FrontierInputError);
      await expect(call).rejects.toMatchObject({ code: 'FRONTIER_BAD_INPUT' });
    }
    expect(await f.stats()).toMatchObject({ hosts: 0, queuedUrls: 0, seenUrls: 0 });
    // A re-crawl has its own queue: its priority is not looked at.
    await f.enqueue([testUrl('ok.test', 'r', { source: 'recrawl', priority: 42 })]);
    expect(only(await f.lease('a', 1)).urls[0]!.tier).toBe('r');
  });

  it('refuses tier weights that are not ten whole numbers', () => {
    expect(() => make({ tierWeights: [8, 4, 2, 1] })).toThrow(FrontierInputError);
    expect(() => make({ tierWeights: [1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5] })).toThrow(
      /ten whole numbers/,
    );
  });
});

describe('host priority classes', () => {
  /**
   * The host's class, and that its ready entry (if any) sits in that class's set only, and never
   * in the legacy `ready` set.
   */
  async function classOf(f: Frontier, host: string): Promise<number> {
    const { hostClass } = await f.hostPriority(host);
    const s = f.shardOf(host);
    const score = await readyScore(redis(), f, host);
    expect(await redis().zscore(f.keys.ready(s), host), `${host} in legacy ready`).toBeNull();
    for (let c = 0; c < 10; c++) {
      const inSet = await redis().zscore(f.keys.readyClass(s, c), host);
      expect(inSet === null ? null : Number(inSet), `${host} in ready:${c}`).toBe(
        c === hostClass ? score : null,
      );
    }
    return hostClass;
  }

  it('leases a due higher-class host first, and never one whose time has not come', async () => {
    const f = make({ shards: 1, maxUrlsPerLease: 1 });
    const low = 'a-low.test'; // sorts first among equal scores
    const high = 'z-high.test';
    await f.enqueue(['1', '2', '3'].map((p) => testUrl(low, p)));
    await f.enqueue(['1', '2', '3'].map((p) => seed(high, 0, p)));
    expect(await classOf(f, low)).toBe(5);
    expect(await classOf(f, high)).toBe(0);
    const h1 = only(await f.lease('a', 1));
    expect(h1.host).toBe(high);
    const l1 = only(await f.lease('a', 1));
    expect(l1.host).toBe(low);

    // Both due again, the low host for longer: the high one still goes first.
    await done(f, l1);
    await sleep(5);
    await done(f, h1);
    expect((await readyScore(redis(), f, low))!).toBeLessThan(
      (await readyScore(redis(), f, high))!,
    );
    const h2 = only(await f.lease('a', 1));
    expect(h2.host).toBe(high);
    const l2 = only(await f.lease('a', 1));
    expect(l2.host).toBe(low);

    // The high host not yet due: the due low host is leased; the high one waits its turn.
    const t0 = await serverNow(redis());
    await done(f, h2, 400);
    await done(f, l2);
    expect(only(await f.lease('a', 1)).host).toBe(low);
    const h3 = only(await leaseWhenReady(f));
    expect(h3.host).toBe(high);
    expect(await serverNow(redis())).toBeGreaterThanOrEqual(t0 + 400);
  });

  it('takes the best seed priority, and honours a seed’s low priority too', async () => {
    const f = make();
    await f.enqueue([seed('seeded.test', 6, 'a'), seed('seeded.test', 3, 'b')]);
    expect(await f.hostPriority('seeded.test')).toMatchObject({ hostClass: 3, seedPriority: 3 });
    await f.enqueue([seed('seeded.test', 7, 'c')]);
    expect(await classOf(f, 'seeded.test')).toBe(3);
    // Seeding a URL already seen still raises its host (the operator said it matters).
    await f.enqueue([seed('seeded.test', 1, 'a')]);
    expect(await classOf(f, 'seeded.test')).toBe(1);
    await f.enqueue([seed('late.test', 9)]);
    expect(await classOf(f, 'late.test')).toBe(9);
  });

  it('lets a seed submitted as a sitemap set its host’s class, and no sitemap entry move one', async () => {
    const f = make();
    // A seed that goes in as a sitemap document (`sitemap-file`) is still a seed.
    await f.enqueue([testUrl('map-seed.test', 'list', { source: 'sitemap-file', priority: 2 })], {
      seeds: true,
    });
    expect(await classOf(f, 'map-seed.test')).toBe(2);
    // Sitemap pages and documents at priority 0, without the seed flag: no host moves.
    await f.enqueue([
      testUrl('listed.test', 'p', { source: 'sitemap', priority: 0 }),
      testUrl('listed.test', 'sitemap.xml', { source: 'sitemap-file', priority: 0 }),
      testUrl('map-seed.test', 'p', { source: 'sitemap', priority: 0 }),
      testUrl('map-seed.test', 'more.xml', { source: 'sitemap-file', priority: 0 }),
    ]);
    expect(await f.hostPriority('listed.test')).toMatchObject({ hostClass: 5 });
    expect(await classOf(f, 'listed.test')).toBe(5);
    expect(await classOf(f, 'map-seed.test')).toBe(2);
  });

  it('raises a host by links from distinct other sites, up to class 2, and by nothing else', async () => {
    const f = make();
    const host = 'target.test';
    await f.enqueue([testUrl(host, 'home')]);
    expect(await classOf(f, host)).toBe(5);
    // Its own site, another source, subdomains of one site: one site at most.
    await f.enqueue([
      link(host, 'www.target.test'),
      link(host, 'a.one.test'),
      link(host, 'b.one.test'),
      testUrl(host, 'sm', { source: 'sitemap', fromHost: 'two.test' }),
      testUrl(host, 'rd', { source: 'redirect', fromHost: 'three.test' }),
    ]);
    expect(await f.hostPriority(host)).toMatchObject({ hostClass: 5, inLinkSites: 1 });
    // 2, 4, 8 sites: 4, 3, 2. The link's URL is seen after the first time; each still counts.
    const sites = Array.from({ length: 12 }, (_, i) => `www.site${i}.test`);
    const expected = [5, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 2];
    for (let i = 1; i < sites.length; i++) {
      await f.enqueue([link(host, sites[i]!)]);
      expect(await classOf(f, host), `${i + 1} sites`).toBe(expected[i]);
    }
    expect(await f.hostPriority(host)).toMatchObject({ hostClass: 2, inLinkSites: 8 });
    // Repeats of a counted site change nothing.
    await f.enqueue(sites.map((s) => link(host, s)));
    expect(await f.hostPriority(host)).toMatchObject({ hostClass: 2, inLinkSites: 8 });

    // From a seed's class: 3 places up at most, never above class 2 by links.
    await f.enqueue([seed('s7.test', 7), seed('s3.test', 3), seed('s1.test', 1)]);
    for (const h of ['s7.test', 's3.test', 's1.test'])
      await f.enqueue(sites.slice(0, 8).map((s) => link(h, s)));
    expect(await classOf(f, 's7.test')).toBe(4);
    expect(await classOf(f, 's3.test')).toBe(2);
    expect(await classOf(f, 's1.test')).toBe(1);
  });

  it('lowers a demoted host below the others (undone by negative levels), keeping its turn', async () => {
    const f = make({ shards: 1 });
    const trap = 'a-trap.test';
    const plain = 'b-plain.test';
    await f.enqueue([seed(trap, 0), testUrl(plain, '1')]);
    const score = await readyScore(redis(), f, trap);
    expect(await f.demoteHost(trap, 'trap_heavy', 3)).toEqual({ hostClass: 3, demoted: 3 });
    expect(await f.demoteHost(trap, 'trap_heavy', 20)).toEqual({ hostClass: 9, demoted: 9 });
    expect(await f.hostPriority(trap)).toEqual({
      hostClass: 9,
      seedPriority: 0,
      inLinkSites: 0,
      demoted: 9,
      demoteReason: 'trap_heavy',
    });
    expect(await classOf(f, trap)).toBe(9);
    expect(await readyScore(redis(), f, trap)).toBe(score);
    expect(only(await f.lease('a', 1)).host).toBe(plain);
    expect(only(await f.lease('a', 1)).host).toBe(trap);

    expect(await f.demoteHost(trap, '', -9)).toEqual({ hostClass: 0, demoted: 0 });
    expect((await f.hostPriority(trap)).demoteReason).toBe('trap_heavy');
    // A host the frontier has not seen yet keeps its demotion for when it arrives.
    await f.demoteHost('unknown.test', 'trap_heavy');
    await f.enqueue([testUrl('unknown.test', 'x')]);
    expect(await classOf(f, 'unknown.test')).toBe(6);
    await expect(f.demoteHost(trap, 'x', 1.5)).rejects.toBeInstanceOf(FrontierInputError);
  });

  /**
   * Makes the shard as an earlier release left it: every ready host in the legacy `ready` set,
   * the hosts in `classSetsToo` also in their class sets (as the release before this one kept
   * them), the others in none (as releases before class sets), and that release's scan marker.
   */
  async function legacyShard(f: Frontier, shard: number, classSetsToo: string[] = []) {
    const k = f.keys;
    const entries = (
      await Promise.all(
        k
          .readyClasses(shard)
          .map(async (key) => ({ key, hosts: await redis().zrange(key, '0', '-1', 'WITHSCORES') })),
      )
    ).filter((e) => e.hosts.length > 0);
    for (const { key, hosts } of entries) {
      for (let i = 0; i < hosts.length; i += 2) {
        await redis().zadd(k.ready(shard), hosts[i + 1]!, hosts[i]!);
        if (!classSetsToo.includes(hosts[i]!)) await redis().zrem(key, hosts[i]!);
      }
    }
    await redis().hset(k.stats(shard), 'ready_scan', 'done');
  }

  it('leases the hosts an earlier release left in the legacy ready set, by class, and drains it', async () => {
    const f = make({ shards: 1 });
    await f.enqueue([testUrl('new.test', '1'), seed('old.test', 0), seed('low.test', 8)]);
    await legacyShard(f, 0, ['new.test']);
    expect(await redis().zcard(f.keys.ready(0))).toBe(3);
    expect(only(await f.lease('a', 1)).host).toBe('old.test');
    // Moved by that one call: nothing left in `ready`, its marker gone, each host in its class.
    expect(await redis().exists(f.keys.ready(0))).toBe(0);
    expect(await redis().hget(f.keys.stats(0), 'ready_scan')).toBeNull();
    expect(await classOf(f, 'new.test')).toBe(5);
    expect(await classOf(f, 'low.test')).toBe(8);
    expect(only(await f.lease('a', 1)).host).toBe('new.test');
    expect(only(await f.lease('a', 1)).host).toBe('low.test');

    // The stats call moves them as well, and then counts each host once.
    const g = make({ shards: 1 });
    await g.enqueue([testUrl('new.test', '1'), seed('old.test', 0)]);
    await legacyShard(g, 0, ['new.test']);
    // An enqueue for a host left in `ready` alone moves it to its class set, keeping its score.
    await redis().zadd(g.keys.ready(0), 12345, 'old.test');
    await g.enqueue([seed('old.test', 0, 'again')]);
    expect(await redis().zscore(g.keys.ready(0), 'old.test')).toBeNull();
    expect(await readyScore(redis(), g, 'old.test')).toBe(12345);
    expect(await g.stats()).toMatchObject({ readyHosts: 2, scheduledHosts: 2 });
    expect(await redis().exists(g.keys.ready(0))).toBe(0);
    expect(await classOf(g, 'old.test')).toBe(0);
    expect((await g.readyHosts(0, await serverNow(redis()))).sort()).toEqual([
      'new.test',
      'old.test',
    ]);
    expect(await g.readyCount(0)).toBe(2);
  });

  it('leases legacy hosts beyond what one call moves after every class set', async () => {
    // 1,001 hosts in `ready` only: the lease call moves 1,000 (the lowest scores) into their
    // class sets and finds the last one in `ready`, after the class sets.
    const f = make({ shards: 1 });
    const hosts = Array.from({ length: 1001 }, (_, i) => `many-${i}.test`);
    await f.enqueue(hosts.map((h) => testUrl(h, '1')));
    await legacyShard(f, 0);
    const last = (await redis().zrange(f.keys.ready(0), '-1', '-1'))[0]!;
    const leases = await f.lease('a', 1001);
    expect(leases).toHaveLength(1001);
    expect(leases.at(-1)!.host).toBe(last);
    expect(await redis().exists(f.keys.ready(0))).toBe(0);
    expect(await f.stats()).toMatchObject({ readyHosts: 0, scheduledHosts: 0, openLeases: 1001 });
  });
});
