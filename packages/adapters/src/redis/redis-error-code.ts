/**
 * The code of a Redis error reply: its first word (`BUSYGROUP`, `BUSYKEY`, `NOSCRIPT`, …),
 * which the Redis protocol defines as the kind of error. ioredis hands a reply error over with
 * only its message, so this is the one place that reads one: callers compare codes.
 */
export function redisErrorCode(err: unknown): string | null {
  const message = err instanceof Error ? err.message : '';
  return /^([A-Z][A-Z0-9_]*)(?:\s|$)/.exec(message)?.[1] ?? null;
}

/**
 * The code of the reply another node gave, when the node that answers relays it inside its own
 * `ERR` (MIGRATE: `ERR Target instance replied with error: BUSYKEY …`); null otherwise.
 */
export function relayedRedisErrorCode(err: unknown): string | null {
  const message = err instanceof Error ? err.message : '';
  return /\breplied with error: ([A-Z][A-Z0-9_]*)\b/.exec(message)?.[1] ?? null;
}
