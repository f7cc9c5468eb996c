import { z } from 'zod';

const count = z.number().int().min(0);

/** `POST /v1/frontier/rebuild` and `frontier.rebuild`: what a rebuild restored. */
export const frontierRebuildOutput = z.object({
  /** `marker_missing` (the coordinator found Redis emptied at start) or `manual`. */
  reason: z.enum(['marker_missing', 'manual']),
  started_at: z.string(),
  took_ms: count,
  /** Seeds in Postgres, and how many were new to the frontier (not fetched yet). */
  seeds: count,
  seeds_enqueued: count,
  /** Host policy rows (hosts and `*.suffix` patterns) written into the frontier. */
  policies: count,
  /** URLs ClickHouse knows, and how many of them were missing from the seen set. */
  known_urls: count,
  newly_seen: count,
  /** URLs whose last attempt failed transiently, queued again. */
  retried: count,
  /** Redirect targets never fetched, queued again. */
  redirects_enqueued: count,
  /** Parsed pages whose links were read; links queued (never fetched) and kept out. */
  pages_read: count,
  links_enqueued: count,
  links_dropped: count,
  /** Fetch rows replayed into the re-crawl schedule; URLs added to it. */
  recrawl_rows: count,
  recrawl_scheduled: count,
  /** URLs queued in all (seeds, retries, redirects, links). */
  enqueued: count,
});
export type FrontierRebuildOutput = z.infer<typeof frontierRebuildOutput>;

/**
 * `GET /v1/frontier/rebuild` (and the answer of `POST`): the latest rebuild this coordinator ran
 * or runs — `idle` (none since it started), `running`, `done` (with its report) or `failed`.
 */
export const frontierRebuildStatus = z.object({
  status: z.enum(['idle', 'running', 'done', 'failed']),
  reason: frontierRebuildOutput.shape.reason.nullable(),
  started_at: z.string().nullable(),
  report: frontierRebuildOutput.nullable(),
  error: z.string().nullable(),
});
export type FrontierRebuildStatus = z.infer<typeof frontierRebuildStatus>;
