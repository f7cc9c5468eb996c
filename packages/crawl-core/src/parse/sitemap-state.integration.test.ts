import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrontierKeys, shardOf } from '@crawler/frontier';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { deleteKeysWithPrefix, uniquePrefix } from '@crawler/testing';
import { SITEMAP_STATE_TTL_MS } from './sitemap-limits';
import { SitemapState, type HeldEntries } from './sitemap-state';

// A host's sitemap budgets and the standings of listed sitemaps, against a real Redis.
const prefix = uniquePrefix('sitemaps');
const frontier = { keys: new FrontierKeys(prefix), shardOf: (host: string) => shardOf(host, 8) };
let redis: RedisClient;
let state: SitemapState;

beforeAll(async () => {
  redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  state = new SitemapState(redis, frontier);
});

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe('SitemapState', () => {
  it('grants a budget until it runs out, then nothing, and keeps it for 24 h', async () => {
    expect(await state.take('a.test', 'documents', 3, 5)).toBe(3);
    expect(await state.take('a.test', 'documents', 4, 5)).toBe(2);
    expect(await state.take('a.test', 'documents', 1, 5)).toBe(0);
    expect(await state.take('a.test', 'entries', 10, 5)).toBe(5);
    expect(await state.take('b.test', 'documents', 1, 5)).toBe(1);
    const key = `${frontier.keys.shard(frontier.shardOf('a.test'))}sm:a.test`;
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(SITEMAP_STATE_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(SITEMAP_STATE_TTL_MS);
    // Later takes do not push the window back.
    await redis.pexpire(key, 5000);
    await state.take('a.test', 'entries', 1, 5);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(5000);
  });

  it('never overdraws under concurrent takers', async () => {
    const grants = await Promise.all(
      Array.from({ length: 40 }, () => state.take('c.test', 'documents', 3, 50)),
    );
    expect(grants.reduce((a, b) => a + b, 0)).toBe(50);
  });

  it('remembers the standing an index gave each sitemap it listed', async () => {
    await state.record('d.test', [
      { urlFp: '00000000000000aa', standing: { level: 1, ownHost: 'host' } },
      { urlFp: '00000000000000bb', standing: { level: 2, ownHost: 'dir' } },
    ]);
    expect(await state.standingOf('d.test', '00000000000000aa')).toEqual({
      level: 1,
      ownHost: 'host',
    });
    expect(await state.standingOf('d.test', '00000000000000bb')).toEqual({
      level: 2,
      ownHost: 'dir',
    });
    expect(await state.standingOf('d.test', '00000000000000cc')).toBeNull();
    expect(await state.standingOf('e.test', '00000000000000aa')).toBeNull();
    const key = `${frontier.keys.shard(frontier.shardOf('d.test'))}sl:d.test`;
    expect(await redis.pttl(key)).toBeGreaterThan(6 * 24 * 3600 * 1000);
  });

  it('holds entries listed on an origin, and hands them to one taker only', async () => {
    const held: HeldEntries = {
      sitemap: 'http://a.test/partners.xml',
      pages: [['http://f.test/p', '00000000000000dd', 1, 1]],
      sitemaps: [['http://f.test/s.xml', '00000000000000ee', 0, 2, { level: 1, ownHost: 'host' }]],
    };
    await state.hold('f.test', 'http://f.test', held);
    await state.hold('f.test', 'http://f.test', { ...held, sitemap: 'http://b.test/s.xml' });
    await state.hold('f.test', 'https://f.test', held);
    const key = `${frontier.keys.shard(frontier.shardOf('f.test'))}sw:http://f.test`;
    expect(await redis.pttl(key)).toBeGreaterThan(6 * 24 * 3600 * 1000);
    // Something this code did not write is left out.
    await redis.rpush(key, 'not json', JSON.stringify({ sitemap: 'x', pages: [['x']] }));
    const [first, second] = await Promise.all([
      state.takeHeld('f.test', 'http://f.test'),
      state.takeHeld('f.test', 'http://f.test'),
    ]);
    const taken = [...first, ...second];
    expect(taken).toEqual([held, { ...held, sitemap: 'http://b.test/s.xml' }]);
    expect(first.length === 0 || second.length === 0).toBe(true);
    expect(await state.takeHeld('f.test', 'http://f.test')).toEqual([]);
    // Another origin of the host keeps its own.
    expect(await state.takeHeld('f.test', 'https://f.test')).toEqual([held]);
  });
});
