import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { connectRedis, type RedisClient } from '@crawler/shared/redis';
import { deleteKeysWithPrefix, uniquePrefix } from '@crawler/shared/testing';
import { Frontier } from './frontier';
import type { EnqueueUrl } from './types';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: RedisClient;
const prefixes: string[] = [];

function make(opts: Partial<ConstructorParameters<typeof Frontier>[1]> = {}): Frontier {
  const prefix = uniquePrefix('frontier');
  prefixes.push(prefix);
  return new Frontier(redis, {
    prefix,
    shards: 8,
    leaseMs: 60_000,
    maxUrlsPerLease: 10,
    defaultGapMs: 0,
    ...opts,
  });
}

function url(host: string, path: string, depth = 0): EnqueueUrl {
  const u = `http://${host}/${path}`;
  return { url: u, urlFp: createHash('sha256').update(u).digest('hex').slice(0, 16), host, depth };
}

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
});
afterAll(async () => {
  for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
  redis.disconnect();
});

describe('Frontier (real Redis)', () => {
  it('accepts each url_fp once', async () => {
    const f = make();
    const batch = [url('a.test', '1'), url('a.test', '2'), url('b.test', '1')];
    expect((await f.enqueue(batch)).accepted).toBe(3);
    expect((await f.enqueue([...batch, url('a.test', '3')])).accepted).toBe(1);
    const s = await f.stats();
    expect(s).toMatchObject({ hosts: 2, queuedUrls: 4, seenUrls: 4, readyHosts: 2, openLeases: 0 });
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
    await f.complete(l!, { processed: 0, delayMs: 0, paceMs: 1, parkReason: 'robots_unavailable' });
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

  it('keeps each host on one shard key space (hash tags)', () => {
    const f = make();
    const s = f.shardOf('example.com');
    expect(f.keys.queue(s, 'example.com')).toContain(`{${s}}`);
    expect(f.keys.ready(s)).toContain(`{${s}}`);
  });
});
