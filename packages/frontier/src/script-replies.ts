import { redisErrorCode } from '@crawler/adapters/redis';

/**
 * The numbers the frontier's scripts answer with instead of a result. The Lua side declares the
 * same numbers once, in `commands/includes/script-replies.lua` (script-replies.test.ts keeps the
 * two in step); callers compare a script's answer with these, never with a bare number.
 */
export const ScriptReply = {
  /**
   * The lease is no longer current: it expired and was reclaimed, was released, or the host was
   * leased again (completeLease, failLease, extendLease; renewLeases per lease).
   */
  STALE_LEASE: -1,
  /** The lease does not hold its IP's cross-shard lock (extendIpLock, releaseIpLock). */
  IP_LOCK_NOT_HELD: 0,
  /** The lease holds its IP's cross-shard lock (extendIpLock, releaseIpLock). */
  IP_LOCK_HELD: 1,
} as const;

/** One of the {@link ScriptReply} numbers. */
export type ScriptReply = (typeof ScriptReply)[keyof typeof ScriptReply];

/**
 * Redis error codes (the first word of a Redis error) the frontier waits out: its scripts refuse
 * a moving shard with SHARD_MOVING (`includes/shard-moving.lua`), and Redis answers TRY_AGAIN
 * while the declared keys of a migrating slot sit on two nodes.
 */
export const ScriptError = {
  SHARD_MOVING: 'SHARDMOVING',
  TRY_AGAIN: 'TRYAGAIN',
} as const;

/** How long a call waits out a shard that is moving to another Redis node. */
const SHARD_MOVE_WAIT_MS = 120_000;

/**
 * Runs a frontier script call, waiting (50 ms doubling to 1 s between tries, 2 minutes at most)
 * while its shard moves to another Redis node.
 */
export async function waitOutShardMove<T>(call: () => Promise<T>): Promise<T> {
  const until = Date.now() + SHARD_MOVE_WAIT_MS;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await call();
    } catch (err) {
      const code = redisErrorCode(err);
      const moving = code === ScriptError.SHARD_MOVING || code === ScriptError.TRY_AGAIN;
      if (!moving || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
