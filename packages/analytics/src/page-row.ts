import { z } from 'zod';
import { MAX_PAGE_LINKS, parsedPageSchema } from '@crawler/domain/messages';
import { encodeRows } from './encode-rows';
import { newestRowsOfUrl, type UrlRowsReader } from './newest-rows-of-url';

const message = parsedPageSchema.shape;

/**
 * The zod schema every row of `pages` passes before it is inserted: the feed message's
 * (`parsedPageSchema`, one declaration of the fields and their bounds), in the table's order,
 * with its links split into the URLs and their nofollow flags (same length) and its time as a
 * Date.
 */
export const pageRowSchema = z
  .object({
    ...replaceField(message, 'links', {
      /** Out-links in document order. */
      out_links: z.array(message.links.element.shape.url).max(MAX_PAGE_LINKS),
      /** Their rel=nofollow flags. */
      out_links_nofollow: z.array(z.boolean()).max(MAX_PAGE_LINKS),
    }),
    /** When the page was fetched; with url_fp the identity of the row. */
    fetched_at: z.date(),
  })
  .refine((r) => r.out_links.length === r.out_links_nofollow.length, {
    message: 'out_links and out_links_nofollow differ in length',
    path: ['out_links_nofollow'],
  });
/** One parsed page (a capture's text and metadata), a row of the `pages` table. */
export type PageRow = z.output<typeof pageRowSchema>;

const PAGE_FIELDS = Object.keys(pageRowSchema.shape) as (keyof PageRow)[];

/**
 * Columns of `pages` in the table's order, as {@link encodePageRows} writes them: the row's
 * fields, with `links_count` (computed: the length of `out_links`) before `out_links`.
 */
export const PAGE_COLUMNS: readonly string[] = PAGE_FIELDS.flatMap((c) =>
  c === 'out_links' ? ['links_count', c] : [c],
);

/**
 * Validates every row (all or nothing) and encodes them as one JSONCompactEachRow payload in the
 * order of {@link PAGE_COLUMNS}.
 * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the first bad row's index and field.
 */
export function encodePageRows(rows: readonly PageRow[]): Promise<Buffer> {
  return encodeRows('pages', pageRowSchema, rows, (row) =>
    PAGE_COLUMNS.map((c) =>
      c === 'links_count'
        ? row.out_links.length
        : c === 'fetched_at'
          ? row.fetched_at.getTime()
          : row[c as keyof PageRow],
    ),
  );
}

/** The parsed captures of a URL, newest first (at most `limit`, default 10). */
export const readPages: UrlRowsReader<PageRow> = newestRowsOfUrl('pages', pageRowSchema, 10);

/** `shape` with the field `key` replaced, in its place, by the fields of `by`. */
function replaceField<S extends z.ZodRawShape, K extends keyof S, R extends z.ZodRawShape>(
  shape: S,
  key: K,
  by: R,
): Omit<S, K> & R {
  const out: Record<string, unknown> = {};
  for (const [k, field] of Object.entries(shape)) {
    if (k === key) Object.assign(out, by);
    else out[k] = field;
  }
  return out as unknown as Omit<S, K> & R;
}
