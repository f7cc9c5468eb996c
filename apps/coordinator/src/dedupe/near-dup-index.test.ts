import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { uniquePrefix } from '@crawler/testing';
import { NearDupIndex } from './near-dup-index';

let redis: RedisClient;
const prefix = uniquePrefix('neardup');

beforeAll(async () => {
  redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

/** Flips the given bit positions (0 = most significant) of a 64-bit hex SimHash. */
function flip(hex: string, bits: number[]): string {
  let v = BigInt(`0x${hex}`);
  for (const b of bits) v ^= 1n << BigInt(63 - b);
  return v.toString(16).padStart(16, '0');
}

const base = '0f1e2d3c4b5a6978';
const page = (n: number, simhash: string) => ({
  url_fp: n.toString(16).padStart(16, '0'),
  url: `http://a.test/p${n}`,
  simhash,
});

describe('NearDupIndex', () => {
  it('finds pages up to 3 bits apart, whichever bands the bits fall in, and names the origin', async () => {
    const index = new NearDupIndex(redis, prefix, 3);
    expect(await index.check([page(1, base)])).toEqual([]);
    // One flipped bit in each of three different bands: only the fourth band still matches.
    const spread = flip(base, [2, 20, 40]);
    const found = await index.check([page(2, spread), page(3, flip(base, [63]))]);
    expect(found).toEqual([
      {
        urlFp: page(2, spread).url_fp,
        url: 'http://a.test/p2',
        originFp: page(1, base).url_fp,
        originUrl: 'http://a.test/p1',
        distance: 3,
      },
      {
        urlFp: page(3, base).url_fp,
        url: 'http://a.test/p3',
        originFp: page(1, base).url_fp,
        originUrl: 'http://a.test/p1',
        distance: 1,
      },
    ]);
  });

  it('does not call 4 bits apart near, and honours a smaller threshold', async () => {
    const index = new NearDupIndex(redis, `${prefix}:b`, 3);
    await index.check([page(10, base)]);
    expect(await index.check([page(11, flip(base, [0, 1, 2, 3]))])).toEqual([]);
    const strict = new NearDupIndex(redis, `${prefix}:c`, 1);
    await strict.check([page(20, base)]);
    expect(await strict.check([page(21, flip(base, [5, 9]))])).toEqual([]);
    expect((await strict.check([page(22, flip(base, [5]))])).map((d) => d.distance)).toEqual([1]);
  });

  it('compares pages of the same batch with each other', async () => {
    const index = new NearDupIndex(redis, `${prefix}:d`, 3);
    const found = await index.check([page(30, base), page(31, flip(base, [7, 8]))]);
    expect(found.map((d) => [d.url, d.originUrl])).toEqual([
      ['http://a.test/p31', 'http://a.test/p30'],
    ]);
  });

  it('records each near duplicate with its origin', async () => {
    const index = new NearDupIndex(redis, `${prefix}:e`, 3);
    await index.checkAndRecord([page(40, base), page(41, flip(base, [30]))]);
    expect(await index.originOf(page(41, base).url_fp)).toMatchObject({
      originUrl: 'http://a.test/p40',
      distance: 1,
    });
    expect(await index.originOf(page(40, base).url_fp)).toBeNull();
  });

  it('keeps each bucket to its most recent pages, an origin matched again included', async () => {
    const on = `${prefix}:f`;
    const index = new NearDupIndex(redis, on, 3, { bucketSize: 3, maxRecords: 1024 });
    // Five pages sharing band 0 (the first 16 bits), 24+ bits apart: that bucket keeps three.
    const tails = ['000000000000', 'ffffffffffff', '0f0f0f0f0f0f', 'f0f0f0f0f0f0', '00ff00ff00ff'];
    const shared = (n: number) => `${base.slice(0, 4)}${tails[n - 1]}`;
    const pages = [1, 2, 3, 4, 5].map((n) => page(100 + n, shared(n)));
    for (const p of pages) expect(await index.check([p])).toEqual([]);
    const bucket = `${on}:simband:{0:${base.slice(0, 4)}}`;
    expect(await redis.llen(bucket)).toBe(3);
    // A near copy of page 103 (still in) is found and moves 103 to the head. Page 101 left the
    // bucket: a copy matching it in band 0 only is not found.
    expect((await index.check([page(200, flip(shared(3), [20]))])).map((d) => d.originFp)).toEqual([
      pages[2]!.url_fp,
    ]);
    expect((await redis.lrange(bucket, 0, 0))[0]).toContain(pages[2]!.url_fp);
    expect(await index.check([page(201, flip(shared(1), [20, 40, 60]))])).toEqual([]);
  });

  it('keeps at most maxRecords verdicts', async () => {
    const on = `${prefix}:g`;
    const index = new NearDupIndex(redis, on, 3, { bucketSize: 16, maxRecords: 512 });
    // 512 records over 256 shards: one per generation per shard, so at most two per shard.
    await index.checkAndRecord([page(300, base)]);
    const copies = Array.from({ length: 800 }, (_, i) => ({
      ...page(1000 + i, flip(base, [i % 64])),
      url_fp: createHash('sha256').update(String(i)).digest('hex').slice(0, 16),
    }));
    await index.checkAndRecord(copies);
    let kept = 0;
    for (const c of copies) if (await index.originOf(c.url_fp)) kept++;
    expect(kept).toBeLessThanOrEqual(512);
    expect(kept).toBeGreaterThan(150);
    // The most recent verdict is always there.
    expect(await index.originOf(copies.at(-1)!.url_fp)).not.toBeNull();
  });
});
