import { z } from 'zod';
import { encodeRows } from './encode-rows';
import { compileFastCheck } from './fast-check';

const UINT16 = 0xffff;
const UINT32 = 0xffff_ffff;

/** One fetch attempt, a row of the `fetches` table. */
export interface FetchRow {
  /** Canonical URL fingerprint (the dedupe key). */
  url_fp: string;
  url: string;
  host: string;
  /** When the response started (or the attempt failed); stored with millisecond precision, UTC. */
  fetched_at: Date;
  /** HTTP status; 0 when there was no HTTP answer. */
  status: number;
  /** '' when ok; else a stable code like 'timeout', 'dns', 'too_large', 'robots_denied', 'redirect_limit'. */
  error_code: string;
  /** Body bytes received (after decoding). */
  bytes: number;
  /** Duration of the fetch, in ms. */
  fetch_ms: number;
  content_type: string;
  /** sha256 hex of the body, or ''. */
  content_hash: string;
  /** Hops from a seed. */
  depth: number;
  agent_id: string;
  /** WARC file key ('' when nothing was stored), with the record's offset and length in bytes. */
  warc_key: string;
  warc_offset: number;
  warc_length: number;
  /** Location a redirect pointed to, or ''. */
  redirect_to: string;
  /** `response`, `revisit` or '' (no record): what the WARC location holds. */
  record_type?: '' | 'response' | 'revisit';
  record_id?: string;
  payload_digest?: string;
  etag?: string;
  last_modified?: string;
  /** 'new', 'changed', 'unchanged' or '' against the URL's previous capture. */
  change?: '' | 'new' | 'changed' | 'unchanged';
  /** URL of the earlier capture an exact duplicate refers to, or ''. */
  duplicate_of?: string;
  /** SimHash of the text, 16 hex digits, or ''. */
  simhash?: string;
}

const uint = (max: number) => z.number().int().min(0).max(max);

/** The zod schema every row of `fetches` passes before it is inserted. */
export const fetchRowSchema = z.object({
  url_fp: z.string().min(1).max(128),
  url: z.string().min(1),
  host: z.string().min(1).max(255),
  fetched_at: z.date(), // zod 4 rejects Invalid Date itself
  status: uint(999),
  error_code: z.string().regex(/^[a-z0-9_]{0,64}$/, 'lower-case code like "timeout", or ""'),
  bytes: uint(UINT32),
  fetch_ms: uint(UINT32),
  content_type: z.string().max(255),
  content_hash: z.string().regex(/^([0-9a-f]{64})?$/, 'sha256 hex or ""'),
  depth: uint(UINT16),
  agent_id: z.string().max(128),
  warc_key: z.string().max(1024),
  warc_offset: uint(Number.MAX_SAFE_INTEGER),
  warc_length: uint(UINT32),
  redirect_to: z.string(),
  // Columns added by migration 003; rows from before default to ''.
  record_type: z.enum(['', 'response', 'revisit']).default(''),
  record_id: z.string().max(100).default(''),
  payload_digest: z.string().max(100).default(''),
  etag: z.string().max(1024).default(''),
  last_modified: z.string().max(1024).default(''),
  change: z.enum(['', 'new', 'changed', 'unchanged']).default(''),
  duplicate_of: z.string().default(''),
  simhash: z
    .string()
    .regex(/^([0-9a-f]{16})?$/, '16 hex digits or ""')
    .default(''),
}) satisfies z.ZodType<FetchRow>;

/** fetchRowSchema as plain checks: a row it passes is encoded as it is (fetchLine fills defaults). */
const isFetchRow = compileFastCheck(fetchRowSchema);

/** Columns of `fetches` in the order {@link encodeFetchRows} writes them. */
export const FETCH_COLUMNS = [
  'url_fp',
  'url',
  'host',
  'fetched_at',
  'status',
  'error_code',
  'bytes',
  'fetch_ms',
  'content_type',
  'content_hash',
  'depth',
  'agent_id',
  'warc_key',
  'warc_offset',
  'warc_length',
  'redirect_to',
  'record_type',
  'record_id',
  'payload_digest',
  'etag',
  'last_modified',
  'change',
  'duplicate_of',
  'simhash',
] as const satisfies readonly (keyof FetchRow)[];

/**
 * A row as a JSONCompactEachRow line, in the order of {@link FETCH_COLUMNS}; fetched_at as epoch
 * ms, which ClickHouse reads into DateTime64(3) as is. Written out rather than mapped over the
 * columns: this runs for every fetch, and a literal array is about a third cheaper.
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
 * fetchRowSchema or a stricter schema (the telemetry message's), so the check is skipped.
 * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the first bad row's index and field.
 */
export async function encodeFetchRows(
  rows: readonly FetchRow[],
  opts: { validated?: boolean } = {},
): Promise<Buffer> {
  return encodeRows('fetches', fetchRowSchema, rows, fetchLine, !opts.validated, isFetchRow);
}
