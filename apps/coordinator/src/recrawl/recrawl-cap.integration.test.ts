import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier } from '@crawler/frontier';
import { type RedisClient } from '@crawler/adapters/redis';
import { redisTestBed } from '@crawler/testing';
import { RecrawlStore, type ObservedRow } from './recrawl-store';

// RECRAWL_MAX_URLS against a real Redis: each shard keeps its share of the schedule, and the URLs
// due furthest ahead (the pages that change least) are the ones that leave it.
const bed = redisTestBed('recrawl-cap');
const prefix = bed.prefix;
const bounds = { minMs: 1000, maxMs: 100_000_000, initialMs: 10_000 };
let redis: RedisClient;

beforeAll(async () => {
  redis = await bed.open();
});
afterAll(bed.close);

/** A 200 capture of URL `n` of one host. */
function capture(n: number, at: number, change: 'new' | 'unchanged'): ObservedRow {
  return {
    url_fp: `fp${String(n).padStart(4, '0')}`,
    url: `https://one.example/p/${n}`,
    host: 'one.example',
    depth: 1,
    status: 200,
    fetched_at: new Date(at),
    change,
    record_type: 'response',
    etag: '',
    last_modified: '',
    record_id: `<urn:uuid:${n}>`,
    payload_digest: `sha1:X${n}`,
    content_hash: 'ab'.repeat(32),
  };
}

describe('RecrawlStore with RECRAWL_MAX_URLS', () => {
  it('keeps each shard to its share, dropping the URLs due furthest ahead', async () => {
    const frontier = new Frontier(redis, { prefix, shards: 4 });
    const store = new RecrawlStore(redis, frontier, bounds, 4 * 50); // 50 per shard
    const t0 = Date.UTC(2026, 11, 1);
    // URLs 0–29 seen unchanged many times: long intervals, due far ahead.
    for (let round = 0; round < 6; round++)
      await store.observe(
        Array.from({ length: 30 }, (_, n) => capture(n, t0 + round, round ? 'unchanged' : 'new')),
      );
    // 40 new URLs: initial interval, due soon. The shard (one host: one shard) holds 50.
    await store.observe(Array.from({ length: 40 }, (_, n) => capture(100 + n, t0 + 10, 'new')));
    const shard = frontier.shardOf('one.example');
    const due = frontier.keys.recrawlDue(shard);
    expect(await redis.zcard(due)).toBe(50);
    expect(await redis.hlen(frontier.keys.recrawlMeta(shard))).toBe(50);
    // Every new URL stayed; 20 of the stable ones were dropped, schedule and meta alike.
    for (let n = 100; n < 140; n++)
      expect(await store.state('one.example', `fp${String(n).padStart(4, '0')}`)).not.toBeNull();
    const stable = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        store.state('one.example', `fp${String(n).padStart(4, '0')}`),
      ),
    );
    expect(stable.filter((s) => s !== null)).toHaveLength(10);
  });
});
