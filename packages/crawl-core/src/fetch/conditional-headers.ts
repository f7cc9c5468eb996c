import type { PriorCapture } from '@crawler/frontier';

/**
 * The headers that make a re-crawl a conditional GET: If-None-Match from the stored ETag,
 * If-Modified-Since from the stored Last-Modified (both when both are known, as RFC 9110
 * allows; the server gives If-None-Match precedence). A 304 then means "unchanged".
 */
export function conditionalHeaders(prior: PriorCapture | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (prior?.etag && isHeaderSafe(prior.etag)) headers['If-None-Match'] = prior.etag;
  if (prior?.lastModified && isHeaderSafe(prior.lastModified))
    headers['If-Modified-Since'] = prior.lastModified;
  return headers;
}

/** Validators come from servers: never let one smuggle a line break or control byte into a request. */
function isHeaderSafe(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]+$/.test(value);
}
