import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { AnalyticsError } from './analytics-errors';

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
}) satisfies z.ZodType<FetchRow>;

/** `2026-11-30 12:00:00.123`: the canonical DateTime64(3) text form, in UTC. */
function clickhouseDateTime(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

/** Rows per slice: the event loop gets a turn between slices (~10 µs of work per row). */
const SLICE_ROWS = 10_000;

/**
 * Validates every row (all or nothing) and encodes them as one JSONEachRow payload, yielding to
 * the event loop between slices so a big batch does not stall the coordinator.
 * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the first bad row's index and field.
 */
export async function encodeFetchRows(rows: readonly FetchRow[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let lines: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const parsed = fetchRowSchema.safeParse(rows[i]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || '(row)';
      throw new AnalyticsError(
        'ANALYTICS_BAD_ROW',
        `fetches row ${i}: field ${field}: ${issue?.message ?? 'invalid'}`,
        { cause: parsed.error },
      );
    }
    const row = parsed.data;
    lines.push(JSON.stringify({ ...row, fetched_at: clickhouseDateTime(row.fetched_at) }));
    // Slices also keep a huge batch from building one string near V8's length limit.
    if (lines.length === SLICE_ROWS) {
      chunks.push(Buffer.from(`${lines.join('\n')}\n`));
      lines = [];
      await nextTurn();
    }
  }
  if (lines.length > 0) chunks.push(Buffer.from(`${lines.join('\n')}\n`));
  return Buffer.concat(chunks);
}
