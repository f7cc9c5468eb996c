import { z } from 'zod';

/** `PUT /v1/settings` and `settings.update`: any subset; null returns a field to its default. */
export const crawlSettingsPatch = z
  .object({
    /** Contact URL named in the crawler's User-Agent (http or https). */
    user_agent_contact: z
      .url({ protocol: /^https?$/, error: 'an http(s) URL' })
      .max(2048)
      .nullable()
      .optional(),
    /** Share of fetch capacity given to re-crawls, 0–1. */
    recrawl_share: z.number().min(0).max(1).nullable().optional(),
    /** Requests per second per host without a policy of its own (0.001–1000). */
    default_rate_limit_rps: z.number().min(0.001).max(1000).nullable().optional(),
    /** Most hops from a seed (0–1000). */
    max_depth: z.number().int().min(0).max(1000).nullable().optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, 'give at least one setting');
export type CrawlSettingsPatchInput = z.input<typeof crawlSettingsPatch>;

/** The settings in effect: stored values, else the environment's. */
export const crawlSettingsView = z.object({
  user_agent_contact: z.string(),
  recrawl_share: z.number(),
  default_rate_limit_rps: z.number(),
  max_depth: z.number().int(),
  /** Fields set by an operator (the others come from the environment). */
  overridden: z.array(z.string()),
  /** Last change (ISO 8601), null when never changed. */
  updated_at: z.string().nullable(),
});
export type CrawlSettingsView = z.infer<typeof crawlSettingsView>;
