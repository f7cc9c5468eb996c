import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteKeysWithPrefix, testRedisBackends, uniquePrefix } from '@crawler/testing';
import { CappedHash } from './capped-hash';
import { cappedHashKeys } from './keys';
import type { RedisClient } from './connect-redis';

// The two-generation capped hash against a real Redis and a Redis Cluster (slot guard on).
for (const backend of testRedisBackends()) {
  describe.skipIf(backend.skip)(`CappedHash on ${backend.name}`, () => {
    const prefix = uniquePrefix('capped');
    let redis: RedisClient;
    const keysOf = (shard: string) => cappedHashKeys(`${prefix}:{${shard}}`);
    const sizes = async (shard: string) => {
      const k = keysOf(shard);
      return [await redis.hlen(k.a), await redis.hlen(k.b)];
    };

    beforeAll(async () => {
      redis = await backend.connect();
    });

    afterAll(async () => {
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    });

    it('holds at most two generations, the most recent fields always', async () => {
      const hash = new CappedHash(redis, keysOf, 4);
      for (let i = 0; i < 10; i++) await hash.put('s1', [[`f${i}`, `v${i}`]]);
      // 0–3 filled a, rotated to b; 4–7 filled b, rotated to a (0–3 deleted); 8, 9 in a.
      expect(await sizes('s1')).toEqual([2, 4]);
      expect(await hash.get('s1', 'f3')).toBeNull();
      for (let i = 4; i < 10; i++)
        expect(await hash.get('s1', `f${i}`, { touch: false })).toBe(`v${i}`);
    });

    it('copies a field read from the older generation forward, so it survives the rotation', async () => {
      const hash = new CappedHash(redis, keysOf, 4);
      for (let i = 0; i < 4; i++) await hash.put('s2', [[`f${i}`, `v${i}`]]); // a full: now b
      expect(await hash.get('s2', 'f0', { touch: false })).toBe('v0');
      expect(await sizes('s2')).toEqual([4, 0]);
      expect(await hash.get('s2', 'f0')).toBe('v0'); // copied into b
      expect(await sizes('s2')).toEqual([4, 1]);
      await hash.put('s2', [
        ['g1', '1'],
        ['g2', '2'],
        ['g3', '3'],
      ]); // b full: a deleted, current again
      expect(await hash.get('s2', 'f0')).toBe('v0');
      expect(await hash.get('s2', 'f1')).toBeNull();
    });

    it('keeps the first value with onlyNew, in either generation', async () => {
      const hash = new CappedHash(redis, keysOf, 3);
      expect(await hash.put('s3', [['x', 'first']], { onlyNew: true })).toBe(1);
      expect(await hash.put('s3', [['x', 'second']], { onlyNew: true })).toBe(0);
      await hash.put('s3', [
        ['y', '1'],
        ['z', '1'],
      ]); // rotated: x in the older generation
      expect(await hash.put('s3', [['x', 'third']], { onlyNew: true })).toBe(0);
      expect(await hash.get('s3', 'x')).toBe('first');
      await hash.put('s3', [['x', 'set']]);
      expect(await hash.get('s3', 'x')).toBe('set');
    });
  });
}
