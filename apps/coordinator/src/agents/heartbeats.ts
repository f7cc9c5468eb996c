import { heartbeatsOf } from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';

/**
 * Heartbeats newer than this count an agent as alive (agents beat every 5 s, so three missed
 * beats make it dead).
 */
export const AGENT_ALIVE_MS = 15_000;

/**
 * The agents' heartbeat set (`{prefix}:agents`: agent id → last beat, epoch ms). An agent leaves
 * it on a clean stop, so one that is in it but silent died without stopping: its leases stay
 * open until they expire or an operator releases them.
 */
export async function readHeartbeats(
  redis: RedisClient,
  agentsKey: string,
): Promise<Map<string, number>> {
  const reply = await redis.zrange(agentsKey, '0', '-1', 'WITHSCORES');
  return new Map(heartbeatsOf(reply).map((b) => [b.agent_id, b.beat_ms]));
}

/** Whether a heartbeat at `beatMs` (undefined: none) is recent enough at `now`. */
export function isAlive(beatMs: number | undefined, now: number): boolean {
  return beatMs !== undefined && beatMs > now - AGENT_ALIVE_MS;
}
