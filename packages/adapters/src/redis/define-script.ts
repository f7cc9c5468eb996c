import { createHash } from 'node:crypto';
import type { RedisClient } from './connect-redis';

/** A Lua script defined on a client: its keys first, then its arguments. */
export type RedisScript = (...args: Array<string | number>) => Promise<unknown>;

/**
 * Defines `lua` as command `name` on `redis` (EVALSHA, loaded on first use and after a restart)
 * taking `numberOfKeys` keys, and returns it bound to that client.
 */
export function defineRedisScript(
  redis: RedisClient,
  name: string,
  numberOfKeys: number,
  lua: string,
): RedisScript {
  redis.defineCommand(name, { numberOfKeys, lua });
  const fn = (redis as unknown as Record<string, RedisScript | undefined>)[name];
  if (!fn) throw new Error(`script ${name} was not defined`);
  return (...args) => fn.apply(redis, args);
}

/**
 * A Lua script called through EVALSHA (EVAL when Redis does not have it yet), without defining a
 * command on the client: for scripts first needed while the client is busy. ioredis copies a
 * client's commands into each auto-pipeline when it makes one, so a command defined while an
 * auto-pipeline is pending fails inside it ("results[i] is not iterable"); EVALSHA and EVAL are
 * in every pipeline. Routed by its first key, as defined commands are.
 */
export function evalRedisScript(
  redis: RedisClient,
  numberOfKeys: number,
  lua: string,
): RedisScript {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (...args) => {
    try {
      return await redis.evalsha(sha, numberOfKeys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(lua, numberOfKeys, ...args);
    }
  };
}
