import { z } from 'zod';

/** A seed list's name: letters, digits, space, `.`, `_`, `-`, up to 100 characters. */
export const seedListName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\w .-]+$/, 'letters, digits, spaces, ".", "_" or "-" only');

/** `POST /v1/seeds` and `seeds.add`: URLs to start crawling from. */
export const addSeedsInput = z
  .object({
    urls: z
      .array(z.string().max(8192))
      .min(1, 'give at least one URL')
      .max(10_000, 'at most 10,000 URLs per call'),
    /** Priority tier, 0 (highest) to 9; default 1. */
    priority: z.number().int().min(0).max(9).default(1),
    /** A seed list to put the valid URLs in (created if new). */
    list: seedListName.optional(),
    /**
     * Every URL is a sitemap (urlset, index or text): fetched and its URLs enqueued, not crawled
     * as a page. Without it a seed is still expanded when its URL names a sitemap (`*.xml`,
     * `*.xml.gz`, `sitemap*.txt`) or its body turns out to be one.
     */
    sitemap: z.boolean().default(false),
  })
  .strict();
export type AddSeedsInput = z.input<typeof addSeedsInput>;

export const addSeedsOutput = z.object({
  /** Valid seeds received. */
  valid: z.number(),
  /** Seeds new to the seed list. */
  added: z.number(),
  /** Seeds new to the frontier (not crawled or queued before). */
  enqueued: z.number(),
  /** The seed list the valid URLs were put in, if one was named. */
  list: z.string().nullable(),
  /** Valid seeds taken as sitemaps (flagged, or with a sitemap's URL): their URLs are enqueued. */
  sitemaps: z.number(),
  rejected: z.array(
    z.object({ index: z.number(), url: z.string(), reason: z.string(), detail: z.string() }),
  ),
});
export type AddSeedsOutput = z.infer<typeof addSeedsOutput>;
