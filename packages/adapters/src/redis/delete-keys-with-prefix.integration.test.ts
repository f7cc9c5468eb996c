import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from './connect-redis';
import { deleteKeysWithPrefix } from './delete-keys-with-prefix';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `t-del-${process.pid}-${Date.now().toString(36)}`;
let redis: RedisClient;

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
});
afterAll(async () => {
  await redis.del(`${prefix}x:kept`, `{${prefix}x:bull}:kept`);
  redis.disconnect();
});

describe('deleteKeysWithPrefix', () => {
  it('deletes the keys under the prefix and those tagged with it (BullMQ), nothing else', async () => {
    await redis.set(`${prefix}:a`, '1');
    await redis.set(`${prefix}:{3}:b`, '1');
    await redis.set(`{${prefix}:bull}:recrawl:id`, '1');
    await redis.set(`${prefix}x:kept`, '1');
    await redis.set(`{${prefix}x:bull}:kept`, '1');
    expect(await deleteKeysWithPrefix(redis, prefix)).toBe(3);
    expect(
      await redis.exists(`${prefix}:a`, `${prefix}:{3}:b`, `{${prefix}:bull}:recrawl:id`),
    ).toBe(0);
    expect(await redis.exists(`${prefix}x:kept`, `{${prefix}x:bull}:kept`)).toBe(2);
  });
});
