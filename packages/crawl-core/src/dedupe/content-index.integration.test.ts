import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanKeys, type RedisClient } from '@crawler/adapters/redis';
import { redisTestBed } from '@crawler/testing';
import { ContentIndex, type ContentOrigin } from './content-index';

// The exact-duplicate index against a real Redis: bounded by DEDUPE_CONTENT_MAX_BODIES, the
// bodies captured or matched most recently kept.
const bed = redisTestBed('content');
const prefix = bed.prefix;
let redis: RedisClient;

beforeAll(async () => {
  redis = await bed.open();
});
afterAll(bed.close);

const sha = (i: number) => createHash('sha256').update(`body-${i}`).digest('hex');
const origin = (i: number): ContentOrigin => ({
  recordId: `<urn:uuid:${i}>`,
  capturedAt: 1_764_000_000_000 + i,
  payloadDigest: `sha1:AAAA${i}`,
  url: `https://a.test/p/${i}?x=1|2`,
  warcKey: 'crawl/x.warc.gz',
  warcOffset: i * 100,
  warcLength: 99,
});

describe('ContentIndex', () => {
  it('remembers at most maxBodies bodies, the most recent and those matched again', async () => {
    const index = new ContentIndex(redis, prefix, 2560); // 5 a generation per shard
    await index.remember(sha(0), origin(0));
    expect(await index.lookup(sha(0))).toEqual(origin(0));
    await index.remember(sha(0), origin(1)); // the first capture wins
    expect(await index.lookup(sha(0))).toEqual(origin(0));
    for (let from = 1; from < 6000; from += 250) {
      const to = Math.min(from + 250, 6000);
      await Promise.all(
        Array.from({ length: to - from }, (_, k) =>
          index.remember(sha(from + k), origin(from + k)),
        ),
      );
      // Body 0 keeps being matched (a popular duplicate): it stays.
      expect(await index.lookup(sha(0)), `after ${to}`).toEqual(origin(0));
    }
    const keys: string[] = [];
    await scanKeys(redis, `${prefix}:content:*`, (found) => void keys.push(...found));
    let fields = 0;
    for (const key of keys) if ((await redis.type(key)) === 'hash') fields += await redis.hlen(key);
    expect(fields).toBeLessThanOrEqual(2560);
    expect(fields).toBeGreaterThanOrEqual(1280);
    expect(await index.lookup(sha(0))).toEqual(origin(0));
    expect(await index.lookup(sha(5999))).toEqual(origin(5999));
    expect(await index.lookup(sha(1))).toBeNull(); // long forgotten
  });
});
