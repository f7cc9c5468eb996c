import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '@crawler/adapters/redis';
import { redisTestBed } from '@crawler/testing';
import type { ShardMoveRecord } from './move-shard.types';
import { ShardMoveStore } from './shard-move-store';

// The move-lock scripts against a real Redis: their answers (ShardMoveLockReply) as the store
// reads them. A prefix of its own.
const bed = redisTestBed('shard-move-store');
const prefix = bed.prefix;
let redis: RedisClient;

beforeAll(async () => {
  redis = await bed.open();
});
afterAll(() => bed.close());

const move = (slot: number): ShardMoveRecord => ({
  shard: 3,
  slot,
  status: 'running',
  phase: 'inspecting',
  from: '127.0.0.1:7000',
  to: '127.0.0.1:7001',
  to_id: 'node-b',
  noop: false,
  resumed: false,
  keys_total: null,
  keys_moved: 0,
  batches: 0,
  shards: [3],
  started_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  finished_at: null,
  by: 'test',
  error: null,
});

describe('ShardMoveStore', () => {
  it('takes, renews and releases a slot lock for its holder only; records only under it', async () => {
    const store = new ShardMoveStore(redis, prefix);
    expect(await store.take(11, 'a', 60_000)).toBe(true);
    expect(await store.take(11, 'a', 60_000)).toBe(true);
    expect(await store.take(11, 'b', 60_000)).toBe(false);
    expect(await store.put('b', move(11))).toBe(false);
    expect(await store.put('a', move(11))).toBe(true);
    expect((await store.read([3])).get(3)?.status).toBe('running');
    await store.release(11, 'b');
    expect(await store.locked(11)).toBe(true);
    await store.release(11, 'a');
    expect(await store.locked(11)).toBe(false);
    expect((await store.read([3])).get(3)?.status).toBe('interrupted');
    expect(await store.take(11, 'b', 60_000)).toBe(true);
  });
});
