/** Longest Retry-After honoured (ms): a server cannot park a host for longer than a day. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * Reads a Retry-After header (RFC 9110: delay-seconds or an HTTP-date) as milliseconds from
 * `nowMs`; 0 when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number {
  if (!value) return 0;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(MAX_RETRY_AFTER_MS, Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return 0;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - nowMs));
}
