import { z } from 'zod';
import { telemetryRowSchema } from '@crawler/domain/messages';
import { encodeRows } from './encode-rows';
import { compileFastCheck } from './fast-check';

/**
 * The zod schema every row of `fetches` passes before it is inserted: the telemetry message's
 * (`telemetryRowSchema`, one declaration of the fields and their bounds), with the time as a
 * Date. A row that passed the message's schema passes this one once its time is a Date.
 */
export const fetchRowSchema = telemetryRowSchema.extend({
  /** When the response started (or the attempt failed); stored with ms precision, UTC. */
  fetched_at: z.date(), // zod 4 rejects Invalid Date itself
});
/** One fetch attempt, a row of the `fetches` table (fields with a default may be absent). */
export type FetchRow = z.input<typeof fetchRowSchema>;

/** fetchRowSchema as plain checks: a row it passes is encoded as it is (fetchLine fills defaults). */
const isFetchRow = compileFastCheck(fetchRowSchema);

/** Columns of `fetches`, in the table's order (the schema's), as {@link encodeFetchRows} writes them. */
export const FETCH_COLUMNS = Object.keys(fetchRowSchema.shape) as readonly (keyof FetchRow)[];

/**
 * A row as a JSONCompactEachRow line, in the order of {@link FETCH_COLUMNS}; fetched_at as epoch
 * ms, which ClickHouse reads into DateTime64(3) as is. Written out rather than mapped over the
 * columns: this runs for every fetch, and a literal array is about a third cheaper
 * (fetch-row.test.ts holds it to FETCH_COLUMNS).
 */
function fetchLine(r: FetchRow): unknown[] {
  return [
    r.url_fp,
    r.url,
    r.host,
    r.fetched_at.getTime(),
    r.status,
    r.error_code,
    r.bytes,
    r.fetch_ms,
    r.content_type,
    r.content_hash,
    r.depth,
    r.agent_id,
    r.warc_key,
    r.warc_offset,
    r.warc_length,
    r.redirect_to,
    r.record_type ?? '',
    r.record_id ?? '',
    r.payload_digest ?? '',
    r.etag ?? '',
    r.last_modified ?? '',
    r.change ?? '',
    r.duplicate_of ?? '',
    r.simhash ?? '',
  ];
}

/**
 * Validates every row (all or nothing) and encodes them as one JSONCompactEachRow payload in the
 * order of {@link FETCH_COLUMNS}, yielding to the event loop between slices so a big batch does
 * not stall the coordinator. `validated`: the caller already checked each row against
 * fetchRowSchema or the telemetry message's schema, so the check is skipped.
 * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the first bad row's index and field.
 */
export async function encodeFetchRows(
  rows: readonly FetchRow[],
  opts: { validated?: boolean } = {},
): Promise<Buffer> {
  return encodeRows('fetches', fetchRowSchema, rows, fetchLine, !opts.validated, isFetchRow);
}
