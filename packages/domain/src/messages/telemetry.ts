import { z } from 'zod';

/**
 * One fetch as an agent reports it on the telemetry stream (Redis, JSON), validated by the
 * coordinator before it goes into ClickHouse. Times are epoch milliseconds.
 */
export const telemetryRowSchema = z.object({
  url_fp: z.string().regex(/^[0-9a-f]{16}$/),
  url: z.string().min(1).max(8192),
  host: z.string().min(1).max(253),
  fetched_at: z.number().int().positive(),
  /** HTTP status, 0 when there was no HTTP answer. */
  status: z.number().int().min(0).max(999),
  /** '' when fine; otherwise a stable code (timeout, dns_not_found, robots_denied, too_large…). */
  error_code: z.string().regex(/^[a-z0-9_]{0,64}$/),
  // Bounded like the ClickHouse columns (UInt32), so a valid row is always a storable one.
  bytes: z.number().int().min(0).max(0xffff_ffff),
  fetch_ms: z.number().int().min(0).max(0xffff_ffff),
  content_type: z.string().max(200),
  content_hash: z.string().regex(/^([0-9a-f]{64})?$/),
  depth: z.number().int().min(0).max(65535),
  agent_id: z.string().max(64),
  warc_key: z.string().max(500),
  warc_offset: z.number().int().min(0),
  warc_length: z.number().int().min(0).max(0xffff_ffff),
  redirect_to: z.string().max(8192),
  /** The WARC record the CDX row points at: `response`, `revisit`, or '' when none was written. */
  record_type: z.enum(['', 'response', 'revisit']).default(''),
  /** Its WARC-Record-ID (with angle brackets), or ''. */
  record_id: z.string().max(100).default(''),
  /** WARC-Payload-Digest (`sha1:` base32), or ''. */
  payload_digest: z.string().max(100).default(''),
  /** Validators the server sent, kept for the next conditional GET. */
  etag: z.string().max(1024).default(''),
  last_modified: z.string().max(1024).default(''),
  /**
   * Against the URL's previous capture: 'new' (none), 'changed', 'unchanged' (304, or the same
   * body), '' when there is no body to compare (errors, redirects).
   */
  change: z.enum(['', 'new', 'changed', 'unchanged']).default(''),
  /** For an exact duplicate of another URL's capture: that URL (the revisit refers to it). */
  duplicate_of: z.string().max(8192).default(''),
  /** 64-bit SimHash of the page text (16 hex digits) for near-duplicate detection, or ''. */
  simhash: z
    .string()
    .regex(/^([0-9a-f]{16})?$/)
    .default(''),
});
export type TelemetryRow = z.output<typeof telemetryRowSchema>;

/** The stream agents append telemetry batches to (one entry = a JSON array of rows). */
export function telemetryStreamKey(prefix: string): string {
  return `${prefix}:telemetry`;
}
