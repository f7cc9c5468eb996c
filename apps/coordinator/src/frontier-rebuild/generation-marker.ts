import { z } from 'zod';
import type { FrontierKeys } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { safeParseJson } from '@crawler/domain/messages';

/**
 * The frontier's generation marker (`FrontierKeys.generation()`): written by the coordinator
 * when it first initialises a frontier, and after every rebuild. Redis loses it with everything
 * else, so a coordinator that finds it missing while Postgres has seeds knows the frontier was
 * lost and rebuilds it.
 */
export const generationMarkerSchema = z.object({
  /** When this Redis dataset was started (first initialised, or rebuilt after a loss), ISO 8601. */
  createdAt: z.string(),
  /** The latest rebuild into it, or null for a frontier that was never rebuilt. */
  rebuiltFrom: z
    .object({
      /** `marker_missing`: the coordinator found Redis emptied; `manual`: `crawler frontier rebuild`. */
      reason: z.enum(['marker_missing', 'manual']),
      /** When it finished, ISO 8601. */
      at: z.string(),
      /** Seeds read from Postgres. */
      seeds: z.number().int(),
      /** URLs known to ClickHouse (fetched at least once). */
      knownUrls: z.number().int(),
      /** URLs put back in hosts' queues. */
      enqueued: z.number().int(),
      /** URLs put back on the re-crawl schedule. */
      scheduled: z.number().int(),
    })
    .nullable(),
});
export type GenerationMarker = z.infer<typeof generationMarkerSchema>;

/** The marker, or null when it is missing (or unreadable, which is treated the same). */
export async function readGenerationMarker(
  redis: RedisClient,
  keys: FrontierKeys,
): Promise<GenerationMarker | null> {
  const raw = await redis.get(keys.generation());
  return raw === null ? null : (safeParseJson(generationMarkerSchema, raw)?.data ?? null);
}

export async function writeGenerationMarker(
  redis: RedisClient,
  keys: FrontierKeys,
  marker: GenerationMarker,
): Promise<void> {
  await redis.set(keys.generation(), JSON.stringify(generationMarkerSchema.parse(marker)));
}
