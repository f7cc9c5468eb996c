import { z } from 'zod';
import {
  agentIdField,
  contentTypeField,
  depthField,
  epochMsField,
  hostField,
  recordIdField,
  sha256OrEmpty,
  simhashOrEmpty,
  uint,
  UINT32_MAX,
  urlField,
  urlFpField,
  warcKeyField,
} from './fields';

/**
 * One fetch attempt as an agent reports it on the telemetry stream (Redis, JSON; one entry = a
 * JSON array of rows), validated by the coordinator and stored as a row of the ClickHouse
 * `fetches` table: the fields are the table's columns, in its order (a test holds them to the
 * migrated table). Times are epoch milliseconds.
 */
export const telemetryRowSchema = z.object({
  /** Canonical URL fingerprint (the dedupe key). */
  url_fp: urlFpField,
  url: urlField.min(1),
  host: hostField,
  /** When the response started (or the attempt failed). */
  fetched_at: epochMsField,
  /** HTTP status, 0 when there was no HTTP answer. */
  status: uint(999),
  /** '' when fine; otherwise a stable code (timeout, dns_not_found, robots_denied, too_large…). */
  error_code: z.string().regex(/^[a-z0-9_]{0,64}$/, 'lower-case code like "timeout", or ""'),
  /** Body bytes received (after decoding). */
  bytes: uint(UINT32_MAX),
  /** Duration of the fetch, ms. */
  fetch_ms: uint(UINT32_MAX),
  content_type: contentTypeField,
  /** SHA-256 (hex) of the body, or ''. */
  content_hash: sha256OrEmpty,
  /** Hops from a seed. */
  depth: depthField,
  agent_id: agentIdField,
  /** WARC file key ('' when nothing was stored), with the record's offset and length in bytes. */
  warc_key: warcKeyField,
  warc_offset: z.number().int().min(0),
  warc_length: uint(UINT32_MAX),
  /** Location a redirect pointed to, or ''. */
  redirect_to: urlField,
  // Fields added with migration 003: rows of agents from before default to ''.
  /** The WARC record the CDX row points at: `response`, `revisit`, or '' when none was written. */
  record_type: z.enum(['', 'response', 'revisit']).default(''),
  /** Its WARC-Record-ID (with angle brackets), or ''. */
  record_id: recordIdField.default(''),
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
  duplicate_of: urlField.default(''),
  /** 64-bit SimHash of the page text (16 hex digits) for near-duplicate detection, or ''. */
  simhash: simhashOrEmpty.default(''),
});
/** A fetch row as validated (defaults filled). */
export type TelemetryRow = z.output<typeof telemetryRowSchema>;
/** A fetch row as it may come (the fields with a default may be absent). */
export type TelemetryRowInput = z.input<typeof telemetryRowSchema>;

/** The fields with a default, as a row that lacks them is read: what a consumer fills in. */
export const TELEMETRY_ROW_DEFAULTS = defaultsOf(telemetryRowSchema.shape);

/** The fields of `S` that have a default, with their output types. */
type Defaults<S> = {
  [K in keyof S as S[K] extends z.ZodDefault<z.ZodType> ? K : never]: z.output<S[K]>;
};

/** The default of each field of `shape` that has one. */
function defaultsOf<S extends z.ZodRawShape>(shape: S): Defaults<S> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape))
    if (field instanceof z.ZodDefault) out[key] = field.def.defaultValue;
  return out as Defaults<S>;
}
