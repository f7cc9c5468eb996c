import { setTimeout as sleep } from 'node:timers/promises';
import { telemetryStreamKey } from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';

/**
 * Clocks of two Redis nodes may differ (on a cluster the stream and the TIME answer can come from
 * different nodes): an entry counts as older than a moment until it is this much younger.
 */
const CLOCK_SKEW_MS = 1000;

/** Redis TIME in ms (the clock of stream ids). */
export async function redisNowMs(redis: RedisClient): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Time (ms) of the oldest entry of the agents' telemetry stream, or null when it is empty. */
async function oldestTelemetryMs(redis: RedisClient, prefix: string): Promise<number | null> {
  const first = await redis.xrange(telemetryStreamKey(prefix), '-', '+', 'COUNT', 1);
  const id = first[0]?.[0];
  return id === undefined ? null : Number(id.split('-')[0]);
}

/**
 * Waits until every fetch an agent recorded before `sinceMs` (Redis time) is in ClickHouse: the
 * coordinator deletes a telemetry entry once its rows are stored (TelemetryIngest), so that holds
 * when the stream's oldest entry is younger. An agent writes a URL's telemetry before its lease
 * lets go of the URL, so a URL in no queue or lease at `sinceMs` that was fetched is then in
 * `urls`. Returns false when `timeoutMs` passes first.
 */
export async function telemetryStoredUntil(
  redis: RedisClient,
  prefix: string,
  sinceMs: number,
  opts: { timeoutMs: number; pollMs?: number; signal?: AbortSignal },
): Promise<boolean> {
  const until = Date.now() + opts.timeoutMs;
  for (;;) {
    const oldest = await oldestTelemetryMs(redis, prefix);
    if (oldest === null || oldest > sinceMs + CLOCK_SKEW_MS) return true;
    if (Date.now() >= until || opts.signal?.aborted) return false;
    await sleep(opts.pollMs ?? 250);
  }
}
