import { z } from 'zod';

/** `GET /v1/agents` and `agents.list`: agents by id. */
export const listAgentsInput = z
  .object({
    /** `next_cursor` of the previous page (the last id shown). */
    cursor: z.string().min(1).max(128).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

export const openLeaseView = z.object({
  host: z.string(),
  shard: z.number().int(),
  /** When the lease expires unless its agent renews it (past: expired, not yet reclaimed). */
  expires_at: z.string(),
});

export const agentView = z.object({
  id: z.string(),
  /** Its last heartbeat (null: it holds leases but never beat where this coordinator looks). */
  last_beat_at: z.string().nullable(),
  /** When the coordinator first recorded it (null until it has). */
  first_seen_at: z.string().nullable(),
  /** Heartbeat within the last 15 s. */
  alive: z.boolean(),
  /**
   * `alive`; `dead`: silent for 15 s without having stopped (still in the heartbeat set, or
   * still holding leases), its leases open until they expire or an operator releases them;
   * `stopped`: it left cleanly.
   */
  state: z.enum(['alive', 'dead', 'stopped']),
  /** Open leases (unexpired, or expired and not yet reclaimed). */
  leases: z.number().int(),
  /** Hosts it holds leases on (at most 20). */
  hosts: z.array(z.string()),
  /** Its open leases, soonest expiry first (at most 20). */
  open_leases: z.array(openLeaseView),
  /** When the last of its open leases expires (null: none open). */
  leases_expire_at: z.string().nullable(),
  /** Fetch attempts per second over the last 60 s (from ClickHouse). */
  pages_per_s: z.number(),
});

export const listAgentsOutput = z.object({
  items: z.array(agentView),
  next_cursor: z.string().nullable(),
});
export type AgentView = z.infer<typeof agentView>;

/** `POST /v1/agents/{id}/release-leases` and `agents.releaseLeases`. */
export const releaseAgentLeasesInput = z.object({ id: z.string().min(1).max(128) }).strict();

export const releaseAgentLeasesOutput = z.object({
  agent_id: z.string(),
  /** Leases returned to their hosts' queues. */
  released: z.number().int(),
  last_beat_at: z.string().nullable(),
});
