import { z } from 'zod';

/** Windows of `GET /v1/stats/series` and the bucket width of each (about 60–100 buckets). */
export const SERIES_WINDOWS = {
  '15m': [900, 15],
  '1h': [3600, 60],
  '6h': [21600, 300],
  '24h': [86400, 900],
} as const;

export const statsSeriesInput = z
  .object({ window: z.enum(['15m', '1h', '6h', '24h']).default('1h') })
  .strict();

const bucket = z.object({
  /** Start of the bucket, epoch ms. */
  t: z.number().int(),
  /** Fetch attempts (robots.txt refusals are not attempts). */
  pages: z.number().int(),
  bytes: z.number(),
  s2xx: z.number().int(),
  s3xx: z.number().int(),
  s4xx: z.number().int(),
  s5xx: z.number().int(),
  /**
   * No HTTP answer (status 0: timeout, refused, DNS…). With s2xx … s5xx it partitions `pages`:
   * each attempt is in exactly one of the five (the status mix charts these).
   */
  no_answer: z.number().int(),
  /** No HTTP answer or a 5xx: `no_answer + s5xx` (an error rate, not a status class). */
  errors: z.number().int(),
  /** Fetch time quantiles over the bucket's attempts, ms (0 when empty). */
  p50_ms: z.number(),
  p95_ms: z.number(),
  p99_ms: z.number(),
  /** Exact duplicates of an earlier capture (stored as revisits). */
  duplicates: z.number().int(),
  /** Bodies whose SimHash equals that of a different body in the window. */
  near_duplicates: z.number().int(),
});

export const statsSeriesOutput = z.object({
  window: z.enum(['15m', '1h', '6h', '24h']),
  bucket_s: z.number().int(),
  buckets: z.array(bucket),
  error_codes: z.array(z.object({ code: z.string(), count: z.number().int() })),
  status_mix: z.array(
    z.object({
      status_class: z.enum(['2xx', '3xx', '4xx', '5xx', 'none']),
      count: z.number().int(),
    }),
  ),
});
export type StatsSeries = z.infer<typeof statsSeriesOutput>;
