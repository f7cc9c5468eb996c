import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keySlot, testRedisBackends } from '@crawler/testing';
import type { Frontier, FrontierOptions } from './frontier';
import type { FrontierKeys } from './keys';
import { frontierTestBed } from './testing/frontier-test-kit';
import type { EnqueueUrl } from './types';

/**
 * One suite, two Redis deployments: the machine's single Redis (REDIS_URL) and a local Redis
 * Cluster of 3 masters (started on first use, shared by the run, stopped by test/global-setup.ts).
 * On the cluster the frontier's scripts also run under the slot guard: a script that touches a key
 * outside its shard's slot fails there, whichever node the key lives on.
 * TEST_REDIS_CLUSTER=0 skips the cluster half (a machine without redis-server).
 */
const backends = testRedisBackends(); // starts the cluster now, overlapping the single-Redis half

function url(host: string, path: string, depth = 0): EnqueueUrl {
  const u = `http://${host}/${path}`;
  return { url: u, urlFp: createHash('sha256').update(u).digest('hex').slice(0, 16), host, depth };
}

/** Every key of a host's shard: the named ones and any the scripts build from the shard prefix. */
function shardKeysOf(keys: FrontierKeys, shard: number, host: string): string[] {
  const base = keys.shard(shard);
  return [
    keys.ready(shard),
    ...keys.readyClasses(shard),
    keys.leases(shard),
    keys.seen(shard),
    keys.stats(shard),
    keys.dead(shard),
    keys.host(shard, host),
    keys.queue(shard, host),
    keys.overflow(shard),
    keys.refillHosts(shard),
    keys.refillDone(shard),
    keys.leasedBatch(shard, host),
    keys.lease(shard, `${shard}-17`),
    keys.ipState(shard, '127.1.0.7'),
    keys.recrawlPending(shard),
    `${base}}{odd}`,
  ];
}

async function countKeys(node: Redis, match: string): Promise<number> {
  let n = 0;
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    n += keys.length;
  } while (cursor !== '0');
  return n;
}

for (const backend of backends) {
  describe.skipIf(backend.skip)(`Frontier on ${backend.name}`, () => {
    // Heads bounded to TEST_HEAD_MAX, a spill pump draining before every lease (the test kit).
    const bed = frontierTestBed('frontier', backend.connect);
    const redis = bed.redis;
    const make = (opts: Partial<FrontierOptions> = {}): Frontier =>
      bed.make({ shards: 8, ...opts });

    /** CLUSTER KEYSLOT on the cluster; on a single Redis the same CRC16 computed here. */
    async function slotOf(key: string): Promise<number> {
      return backend.cluster ? Number(await redis().call('CLUSTER', 'KEYSLOT', key)) : keySlot(key);
    }

    beforeAll(bed.open);
    afterAll(bed.close);

    it('accepts each url_fp once', async () => {
      const f = make();
      const batch = [url('a.test', '1'), url('a.test', '2'), url('b.test', '1')];
      expect((await f.enqueue(batch)).accepted).toBe(3);
      expect((await f.enqueue([...batch, url('a.test', '3')])).accepted).toBe(1);
      const s = await f.stats();
      expect(s).toMatchObject({
        hosts: 2,
        queuedUrls: 4,
        seenUrls: 4,
        readyHosts: 2,
        openLeases: 0,
      });
    });

    it('leases a host once, in batches, and fences completion by lease id', async () => {
      const f = make();
      await f.enqueue(Array.from({ length: 15 }, (_, i) => url('c.test', String(i))));
      const [lease] = await f.lease('agent-1', 5);
      expect(lease?.host).toBe('c.test');
      expect(lease?.urls.map((u) => u.url)).toEqual(
        Array.from({ length: 10 }, (_, i) => `http://c.test/${i}`),
      );
      // The host has an open lease: nobody else gets it.
      expect(await f.lease('agent-2', 5)).toEqual([]);
      // Done 4 of 10: six return to the head, in order, behind a 0 ms delay.
      expect(await f.complete(lease!, { processed: 4, delayMs: 0, paceMs: 1 })).toBe(true);
      expect(await f.complete(lease!, { processed: 10, delayMs: 0, paceMs: 1 })).toBe(false);
      const [again] = await f.lease('agent-2', 5);
      expect(again?.urls.map((u) => u.url)).toEqual(
        [4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map((i) => `http://c.test/${i}`),
      );
      expect((await f.stats()).queuedUrls).toBe(1);
    });

    it('never leases a host before its next allowed time', async () => {
      const f = make();
      await f.enqueue([url('d.test', '1'), url('d.test', '2')]);
      const [l1] = await f.lease('a', 1);
      await f.complete(l1!, { processed: 1, delayMs: 400, paceMs: 400 });
      // l1 had both URLs; processed 1 → one back, but the host waits 400 ms.
      expect(await f.lease('a', 1)).toEqual([]);
      await new Promise((r) => setTimeout(r, 450));
      const [l2] = await f.lease('a', 1);
      expect(l2?.urls.map((u) => u.url)).toEqual(['http://d.test/2']);
    });

    it('returns the URLs of an expired lease, and ignores the late agent', async () => {
      const f = make({ leaseMs: 1000 });
      await f.enqueue([url('e.test', '1'), url('e.test', '2')]);
      const [stale] = await f.lease('slow-agent', 1);
      await new Promise((r) => setTimeout(r, 1100));
      const [fresh] = await f.lease('agent-2', 1);
      expect(fresh?.urls.map((u) => u.url)).toEqual(['http://e.test/1', 'http://e.test/2']);
      expect(await f.complete(stale!, { processed: 2, delayMs: 0, paceMs: 1 })).toBe(false);
      expect((await f.hostState('e.test')).fields.lease).toBe(fresh?.leaseId);
    });

    it('parks a host with its remaining URLs as dead letters', async () => {
      const f = make();
      await f.enqueue([url('f.test', '1'), url('f.test', '2')]);
      const [l] = await f.lease('a', 1);
      await f.complete(l!, {
        processed: 0,
        delayMs: 0,
        paceMs: 1,
        parkReason: 'robots_unavailable',
      });
      await f.enqueue([url('f.test', '3')]);
      const dead = await f.deadLetters();
      expect(dead.map((d) => d.url).sort()).toEqual([
        'http://f.test/1',
        'http://f.test/2',
        'http://f.test/3',
      ]);
      expect(dead.every((d) => d.reason === 'robots_unavailable')).toBe(true);
      expect(await f.isIdle()).toBe(true);
    });

    it('blocking a host stops its leases; unblocking restores its queue', async () => {
      const f = make();
      await f.enqueue([url('g.test', '1')]);
      await f.setHostPolicy('g.test', { gapMs: null, blocked: true });
      expect(await f.lease('a', 5)).toEqual([]);
      await f.setHostPolicy('g.test', { gapMs: 250, blocked: false });
      const [l] = await f.lease('a', 5);
      expect(l?.gapMs).toBe(250);
    });

    it('keeps every key of a shard in one cluster slot, for many hosts', async () => {
      const f = make({ shards: 64 });
      const hosts = [
        'example.com',
        'www.example.com',
        'xn--bcher-kva.example',
        '127.1.0.7',
        '[::1]',
        'a{b}.test', // braces are legal in WHATWG hosts; the shard's tag comes first
        '{}.test',
        ...Array.from({ length: 40 }, (_, i) => `host-${i}.test`),
      ];
      for (const host of hosts) {
        const keys = shardKeysOf(f.keys, f.shardOf(host), host);
        const slots = await Promise.all(keys.map(slotOf));
        expect(new Set(slots).size, `${host}: ${keys.join(' ')} → ${slots.join(' ')}`).toBe(1);
      }
    });

    it('runs every script on hosts of all shards without leaving their slots', async () => {
      // Under the slot guard (cluster half) each script call fails if it touches another slot;
      // on the cluster the shards live on all three masters, so calls are routed to each.
      const f = make({ maxUrlsPerLease: 2 });
      const hosts = Array.from({ length: 24 }, (_, i) => `slot-${i}.test`);
      expect(new Set(hosts.map((h) => f.shardOf(h))).size).toBe(8);
      await f.enqueue(hosts.flatMap((h) => [url(h, '1'), url(h, '2'), url(h, '3')]));
      await f.setHostPolicy(hosts[0]!, { gapMs: 10, blocked: false });
      await f.setHostPolicy(hosts[1]!, { gapMs: null, blocked: true });
      // Host priority: a seed, a link from another site (to a URL already seen), a demotion.
      await f.enqueue([
        { ...url(hosts[2]!, 'seed'), source: 'seed', priority: 0 },
        { ...url(hosts[3]!, '1'), source: 'link', fromHost: 'elsewhere.test' },
      ]);
      await f.demoteHost(hosts[4]!, 'test');
      const leases = await f.lease('agent-1', 100);
      expect(leases).toHaveLength(23);
      const [first, second, ...rest] = leases;
      await f.complete(first!, { processed: 1, delayMs: 0, paceMs: 1 });
      await f.complete(second!, { processed: 0, delayMs: 0, paceMs: 1, parkReason: 'test' });
      await Promise.all(rest.map((l) => f.complete(l, { processed: 2, delayMs: 0, paceMs: 1 })));
      const again = await f.lease('agent-2', 100);
      expect(again.length).toBeGreaterThan(0);
      expect(await f.stats()).toMatchObject({
        hosts: 24,
        seenUrls: 73,
        openLeases: again.length,
      });
      // The parked host's 3 URLs: its lease's and head's as dead letters, its spilled one (heads
      // bounded) dropped in Postgres and counted, never brought back into Redis.
      const dropped = (await f.deadLettersDroppedByReason()).test ?? 0;
      if (!f.spill.enabled) expect(dropped).toBe(0);
      expect((await f.stats()).deadLetters + dropped).toBe(3);
      expect(await f.deadLetters()).toHaveLength(3 - dropped);

      const c = redis();
      if (backend.cluster && 'nodes' in c) {
        const perMaster = await Promise.all(
          c.nodes('master').map((n) => countKeys(n, `${f.keys.prefix}:*`)),
        );
        expect(perMaster).toHaveLength(3);
        expect(
          perMaster.every((n) => n > 0),
          `keys per master: ${perMaster.join(', ')}`,
        ).toBe(true);
      }
    });
  });
}
