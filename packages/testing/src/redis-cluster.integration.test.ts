import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { keySlot } from './key-slot';
import { startLocalRedisCluster, type LocalRedisCluster } from './redis-cluster';
import { guardScriptSlots, SLOT_GUARD_ERROR, withSlotGuard } from './script-slot-guard';
import { deleteKeysWithPrefix, uniquePrefix } from '.';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const WITH_CLUSTER = process.env.TEST_REDIS_CLUSTER !== '0';

type Probe = (...args: (string | number)[]) => Promise<unknown>;
/** A command added with defineCommand (ioredis types do not know it). */
function command(redis: RedisClient, name: string): Probe {
  const fn = (redis as unknown as Record<string, Probe | undefined>)[name];
  if (!fn) throw new Error(`${name} is not defined`);
  return (...args) => fn.apply(redis, args);
}

describe('slot guard (single Redis)', () => {
  let redis: RedisClient;
  const prefix = uniquePrefix('slotguard');
  beforeAll(async () => {
    redis = guardScriptSlots(await connectRedis(REDIS_URL));
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  });

  it('lets a script that stays in its slot run unchanged', async () => {
    redis.defineCommand('guardedSetGet', {
      numberOfKeys: 1,
      lua: "redis.call('SET', KEYS[1], ARGV[1]) redis.pcall('HSET', ARGV[2], 'f', 1) return redis.call('GET', KEYS[1])",
    });
    const run = command(redis, 'guardedSetGet');
    expect(await run(`${prefix}:{7}:a`, 'v', `${prefix}:{7}:b`)).toBe('v');
  });

  it('fails a script that builds a key of another slot, read or write, call or pcall', async () => {
    const a = `${prefix}:{1}:a`;
    const b = `${prefix}:{2}:b`;
    for (const lua of [
      "return redis.call('GET', ARGV[1])",
      "redis.call('SET', ARGV[1], 1) return 1",
      "return redis.pcall('LLEN', ARGV[1])",
      "return redis.call('DEL', KEYS[1], ARGV[1])",
    ]) {
      await expect(redis.eval(withSlotGuard(lua), 1, a, b), lua).rejects.toThrow(SLOT_GUARD_ERROR);
    }
    // Declared keys too (a single Redis would run this without a word).
    await expect(redis.eval(withSlotGuard('return 1'), 2, a, b)).rejects.toThrow(SLOT_GUARD_ERROR);
    expect(await redis.exists(b)).toBe(0);
  });

  it('keeps a #!lua shebang line first', async () => {
    const lua = "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])";
    expect(withSlotGuard(lua).startsWith('#!lua flags=no-writes\n')).toBe(true);
    expect(await redis.eval(withSlotGuard(lua), 1, `${prefix}:{3}:none`)).toBeNull();
  });
});

describe.skipIf(!WITH_CLUSTER)('local Redis Cluster', () => {
  let cluster: LocalRedisCluster;
  let redis: RedisClient;
  const prefix = uniquePrefix('cluster');
  beforeAll(async () => {
    cluster = await startLocalRedisCluster();
    redis = await connectRedis(cluster.url, { cluster: true });
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  });

  it('is started once and then reused (parallel calls too)', async () => {
    const again = await Promise.all([startLocalRedisCluster(), startLocalRedisCluster()]);
    expect(again.map((c) => [c.url, c.started])).toEqual([
      [cluster.url, false],
      [cluster.url, false],
    ]);
    expect(cluster.ports).toEqual([0, 1, 2].map((i) => cluster.ports[0]! + i));
    expect('nodes' in redis && redis.nodes('master')).toHaveLength(3);
  });

  it('computes slots like CLUSTER KEYSLOT', async () => {
    const keys = ['a', '{a}x', '{}x', 'x{y}z{w}', 'x{', 'héllo', `${prefix}:{63}:q:example.com`];
    for (let i = 0; i < 50; i++) keys.push(`crawl:{${i}}:ready`);
    for (const k of keys)
      expect(keySlot(k), k).toBe(Number(await redis.call('CLUSTER', 'KEYSLOT', k)));
  });

  it('rejects a script whose keys hash to two slots (CROSSSLOT)', async () => {
    const keys = [`${prefix}:{1}:a`, `${prefix}:{2}:b`];
    // ioredis refuses before sending; a node asked directly answers CROSSSLOT.
    await expect(redis.eval('return 1', 2, ...keys)).rejects.toThrow(/same slot/);
    const node = 'nodes' in redis ? redis.nodes('master')[0] : undefined;
    await expect(node!.eval('return 1', 2, ...keys)).rejects.toThrow(/CROSSSLOT/);
  });

  it('the slot guard also catches what the cluster lets through', async () => {
    // {b} and {f} are slots 3300 and 3168, both on the first master: Redis 7.0 runs a script
    // that declares one and builds the other; the guard does not.
    const a = `${prefix}:{b}:a`;
    const b = `${prefix}:{f}:b`;
    const lua = "redis.call('SET', ARGV[1], 1) return 1";
    await expect(redis.eval(withSlotGuard(lua), 1, a, b)).rejects.toThrow(SLOT_GUARD_ERROR);
  });
});
