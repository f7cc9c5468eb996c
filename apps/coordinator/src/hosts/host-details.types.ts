import { z } from 'zod';
import { hostPolicyState } from './host-policy.types';

export const robotsView = z.object({
  /** URL of the robots.txt fetched. */
  url: z.string(),
  /** HTTP status, 0 when it could not be fetched (see `error`). */
  status: z.number().int(),
  error: z.string().nullable(),
  fetched_at: z.string(),
  /** As fetched, at most 500 KiB. */
  body: z.string(),
  rules_summary: z.object({
    /** `rules` (2xx), `allow_all` (4xx), `disallow_all` (5xx or unreachable; RFC 9309). */
    verdict: z.enum(['rules', 'allow_all', 'disallow_all']),
    /** Whether our user agent may fetch `/`. */
    root_allowed: z.boolean(),
    crawl_delay_s: z.number().nullable(),
    sitemaps: z.array(z.string()),
    allow_lines: z.number().int(),
    disallow_lines: z.number().int(),
  }),
});

export const recentFetch = z.object({
  url: z.string(),
  fetched_at: z.string(),
  status: z.number().int(),
  error_code: z.string(),
  fetch_ms: z.number().int(),
  bytes: z.number().int(),
});

export const hostDetailsOutput = z.object({
  host: z.string(),
  policy: hostPolicyState,
  queue_length: z.number().int(),
  next_allowed_at: z.string().nullable(),
  leased: z.boolean(),
  parked: z.string().nullable(),
  robots: robotsView.nullable(),
  /** The last 50 attempts, newest first. */
  recent_fetches: z.array(recentFetch),
  /** The last 20 failed attempts (no answer, 4xx, 5xx or an error code), newest first. */
  recent_errors: z.array(recentFetch.omit({ fetch_ms: true, bytes: true })),
  /** The last 20 audit entries naming the host, newest first. */
  audit: z.array(
    z.object({
      at: z.string(),
      /** Who made the change (e.g. an email); null for viewers, who do not see the audit log. */
      actor: z.string().nullable(),
      action: z.string(),
      before: z.unknown(),
      after: z.unknown(),
    }),
  ),
});
export type HostDetails = z.infer<typeof hostDetailsOutput>;
export type RobotsView = z.infer<typeof robotsView>;
