import { z } from 'zod';

/**
 * The crawl settings in effect, as the coordinator publishes them for agents: stored in Postgres
 * (PUT /v1/settings), else the environment's values. Written to one Redis key at start-up and on
 * every change; agents read it every few seconds and apply it without a restart.
 */
export const liveCrawlSettingsSchema = z
  .object({
    /** The contact URL in the User-Agent (`+https://…`). */
    user_agent_contact: z.url().max(2048),
    /** Share of leases given to re-crawl queues (0–1). */
    recrawl_share: z.number().min(0).max(1),
    /** Gap between requests to a host without a rate limit of its own (ms). */
    default_gap_ms: z.number().int().min(0).max(3_600_000),
    /** Links are followed to this depth from the seeds. */
    max_depth: z.number().int().min(0).max(1000),
  })
  .strict();
export type LiveCrawlSettings = z.infer<typeof liveCrawlSettingsSchema>;

/** The User-Agent agents send: product token, version and contact URL. */
export function userAgentOf(token: string, contactUrl: string): string {
  return `Mozilla/5.0 (compatible; ${token}/0.1; +${contactUrl})`;
}
