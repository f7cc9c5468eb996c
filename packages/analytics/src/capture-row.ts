import type { z } from 'zod';
import { fetchRowSchema } from './fetch-row';
import { newestRowsOfUrl, type UrlRowsReader } from './newest-rows-of-url';

/**
 * A CDX row (`captures`, fed from `fetches` by a view): where the WARC record of one fetch is
 * (`warc_key`, `warc_offset`, `warc_length`) and what it holds (`record_type`: `response`, or
 * `revisit` for an exact duplicate of the capture `duplicate_of` names; '' before migration
 * 003). The fetch row's fields, in the table's order.
 */
export const captureRowSchema = fetchRowSchema.pick({
  url_fp: true,
  url: true,
  fetched_at: true,
  status: true,
  content_type: true,
  record_type: true,
  record_id: true,
  payload_digest: true,
  content_hash: true,
  warc_key: true,
  warc_offset: true,
  warc_length: true,
  duplicate_of: true,
});
export type CaptureRow = z.output<typeof captureRowSchema>;

/** Columns of `captures`, in the table's order. */
export const CAPTURE_COLUMNS = Object.keys(captureRowSchema.shape);

/** The captures of a URL, newest first (at most `limit`, default 100). */
export const readCaptures: UrlRowsReader<CaptureRow> = newestRowsOfUrl(
  'captures',
  captureRowSchema,
  100,
);
