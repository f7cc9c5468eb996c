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
  error_code: z.string().max(64),
  bytes: z.number().int().min(0),
  fetch_ms: z.number().int().min(0),
  content_type: z.string().max(200),
  content_hash: z.string().regex(/^([0-9a-f]{64})?$/),
  depth: z.number().int().min(0).max(65535),
  agent_id: z.string().max(64),
  warc_key: z.string().max(500),
  warc_offset: z.number().int().min(0),
  warc_length: z.number().int().min(0),
  redirect_to: z.string().max(8192),
});
export type TelemetryRow = z.infer<typeof telemetryRowSchema>;

/** The stream agents append telemetry batches to (one entry = a JSON array of rows). */
export function telemetryStreamKey(prefix: string): string {
  return `${prefix}:telemetry`;
}
