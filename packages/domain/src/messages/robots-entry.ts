import { z } from 'zod';

/**
 * What agents keep in Redis about an origin's robots.txt fetch (key `<shard prefix>robots:<origin>`,
 * 24 h), shared by every agent and read by the coordinator's host view. Stored as this metadata
 * (a line of JSON) followed by the body's bytes (`encodeStoredRobots` in the robots module).
 */
export const storedRobotsMetaSchema = z.object({
  status: z.number().int(),
  error: z.enum(['timeout', 'network', 'too_many_redirects']).optional(),
  /** Consecutive failed fetches (5xx, unreachable) up to this one. */
  failures: z.number().int().min(0).default(0),
  /** Epoch ms of the fetch. */
  fetchedAt: z.number(),
});
export type StoredRobotsMeta = z.infer<typeof storedRobotsMetaSchema>;
