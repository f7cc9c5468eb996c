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
