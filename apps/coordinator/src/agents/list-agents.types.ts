import { z } from 'zod';

/** `GET /v1/agents` and `agents.list`: agents by id. */
export const listAgentsInput = z
  .object({
    /** `next_cursor` of the previous page (the last id shown). */
    cursor: z.string().min(1).max(128).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

export const agentView = z.object({
  id: z.string(),
  last_beat_at: z.string(),
  /** When the coordinator first recorded it (null until it has). */
  first_seen_at: z.string().nullable(),
  /** Heartbeat within the last 15 s. */
  alive: z.boolean(),
  /** Open (unexpired) leases. */
  leases: z.number().int(),
  /** Hosts it holds leases on (at most 20). */
  hosts: z.array(z.string()),
  /** Fetch attempts per second over the last 60 s (from ClickHouse). */
  pages_per_s: z.number(),
});

export const listAgentsOutput = z.object({
  items: z.array(agentView),
  next_cursor: z.string().nullable(),
});
export type AgentView = z.infer<typeof agentView>;
