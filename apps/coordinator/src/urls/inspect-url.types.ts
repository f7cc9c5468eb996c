import { normalizeUrl } from '@crawler/domain/url';
import { z } from 'zod';

/** `GET /v1/urls?url=` and `urls.inspect`: any URL; it is normalized as the crawler does. */
export const inspectUrlInput = z
  .object({
    url: z
      .string()
      .min(1)
      .max(8192)
      .superRefine((u, ctx) => {
        const n = normalizeUrl(u);
        if (!n.ok) ctx.addIssue({ code: 'custom', message: `not a crawlable URL: ${n.detail}` });
      }),
  })
  .strict();

const historyRow = z.object({
  fetched_at: z.string(),
  status: z.number().int(),
  error_code: z.string(),
  fetch_ms: z.number().int(),
  bytes: z.number().int(),
  /** 'new', 'changed', 'unchanged' or ''. */
  change: z.string(),
  /** 'response', 'revisit' or '' (no WARC record). */
  record_type: z.string(),
  warc_key: z.string(),
  warc_offset: z.number().int(),
  warc_length: z.number().int(),
  /** The URL whose body this one repeated exactly (stored as a revisit of it), or ''. */
  duplicate_of: z.string(),
});

export const VERDICT_REASONS = [
  'fetched',
  'robots',
  'blocked',
  'trap',
  'soft_404',
  'budget',
  'duplicate',
  'not_yet_due',
  'queued',
  'unknown',
] as const;
export type VerdictReason = (typeof VERDICT_REASONS)[number];

export const urlVerdict = z.object({
  fetched: z.boolean(),
  reason: z.enum(VERDICT_REASONS),
  detail: z.string(),
});
export type UrlVerdict = z.infer<typeof urlVerdict>;

export const inspectUrlOutput = z.object({
  /** The normalized URL. */
  url: z.string(),
  url_fp: z.string(),
  host: z.string(),
  /** Fetch attempts, newest first (at most 100). */
  history: z.array(historyRow),
  /** The attempts that wrote a WARC record (read one with GET /v1/captures). */
  captures: z.array(historyRow),
  /** The newest parsed page. */
  page: z
    .object({
      title: z.string(),
      description: z.string(),
      lang: z.string(),
      /** At most 20,000 characters. */
      text: z.string(),
      links: z.array(z.object({ url: z.string(), nofollow: z.boolean() })),
      canonical: z.string(),
      noindex: z.boolean(),
      simhash: z.string(),
      content_hash: z.string(),
    })
    .nullable(),
  verdict: urlVerdict,
  /** The re-crawl schedule, null when none (or when the coordinator runs no re-crawl store). */
  recrawl: z.object({ interval_ms: z.number(), due_at: z.string() }).nullable(),
});
export type UrlInspection = z.infer<typeof inspectUrlOutput>;
export type HistoryRow = z.infer<typeof historyRow>;
