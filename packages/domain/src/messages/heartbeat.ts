import { z } from 'zod';
import { agentIdField, epochMsField } from './fields';

/**
 * An agent's heartbeat: a member of the agents' sorted set (`agentsKey`), its id scored with the
 * time of its last beat. Agents beat every 5 s and leave the set on a clean stop.
 */
export const heartbeatSchema = z.object({
  agent_id: agentIdField.min(1),
  /** Epoch ms of the last beat. */
  beat_ms: epochMsField,
});
export type Heartbeat = z.infer<typeof heartbeatSchema>;

/**
 * The heartbeats in a `ZRANGE agentsKey 0 -1 WITHSCORES` reply (id, score, id, score, …).
 * Members that fail the schema (written by something other than an agent) are left out.
 */
export function heartbeatsOf(reply: readonly string[]): Heartbeat[] {
  const beats: Heartbeat[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const beat = heartbeatSchema.safeParse({ agent_id: reply[i], beat_ms: Number(reply[i + 1]) });
    if (beat.success) beats.push(beat.data);
  }
  return beats;
}
