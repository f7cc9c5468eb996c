import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { startTestRedisServer, type TestRedisServer } from '@crawler/testing';
import { RedisRoom } from './redis-room';

// The agent's guard against a full Redis, against a real redis-server of its own with a
// maxmemory (the machine's has none): leasing holds at the memory ratio and when the telemetry
// the coordinator has not stored nears its bound, and resumes once there is room again.
let server: TestRedisServer;
let redis: RedisClient;
const log = createLogger('redis-room', 'silent');
const KEY = 'test:telemetry';

beforeAll(async () => {
  server = await startTestRedisServer(['--maxmemory', '8mb', '--maxmemory-policy', 'noeviction']);
  redis = await connectRedis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

const room = (telemetryMaxBytes = 1024 ** 3) =>
  new RedisRoom(redis, {
    telemetryKey: KEY,
    telemetryMaxBytes,
    meanEntryBytes: () => 1000,
    memoryHoldRatio: 0.9,
    log,
  });

describe('RedisRoom', () => {
  it('holds leasing while Redis is near its maxmemory, and resumes with room', async () => {
    const r = room();
    expect(await r.check()).toBeNull();
    // Fill Redis to over 90% of its 8 MB, 64 KB at a time, until it refuses writes.
    const value = 'x'.repeat(64 * 1024);
    let n = 0;
    try {
      for (; n < 200; n++) await redis.set(`test:fill:${n}`, value);
    } catch {
      // OOM: Redis is full.
    }
    const held = await r.check();
    expect(held).toMatchObject({ reason: 'memory', maxBytes: 8 * 1024 * 1024 });
    expect(r.holdsLeasing).toBe(true);
    // Freeing a little is not enough (no flapping at the edge); freeing most is.
    await redis.del(`test:fill:0`);
    expect((await r.check())?.reason).toBe('memory');
    for (let i = 0; i < n; i++) await redis.del(`test:fill:${i}`);
    expect(await r.check()).toBeNull();
    expect(r.holdsLeasing).toBe(false);
  });

  it('holds leasing while the telemetry not yet stored nears its bound', async () => {
    const r = room(100_000); // 90 entries of 1,000 bytes hold
    for (let i = 0; i < 89; i++) await redis.xadd(KEY, '*', 'rows', '[]');
    expect(await r.check()).toBeNull();
    await redis.xadd(KEY, '*', 'rows', '[]');
    expect(await r.check()).toMatchObject({ reason: 'telemetry', maxBytes: 100_000 });
    // The coordinator stores and deletes entries: leasing resumes under 80% of the hold mark.
    const ids = (await redis.xrange(KEY, '-', '+', 'COUNT', 10)).map(([id]) => id);
    await redis.xdel(KEY, ...ids);
    expect((await r.check())?.reason).toBe('telemetry');
    const more = (await redis.xrange(KEY, '-', '+', 'COUNT', 20)).map(([id]) => id);
    await redis.xdel(KEY, ...more);
    expect(await r.check()).toBeNull();
  });
});
