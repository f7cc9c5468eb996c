import { CSRF_HEADER } from '@crawler/domain/api';
import { AppError } from '../api/app-error';
import type { RequestInfo } from './caller';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}

/**
 * Refuses a state-changing request that a browser may have sent on another site's behalf.
 * Cookies travel with such requests, bearer tokens do not, so only calls that are not
 * bearer-authenticated are checked. Any one of these proves the request is not cross-site:
 * - `x-crawler-csrf: 1`: a custom header, which a cross-site page can only send after a CORS
 *   preflight, and the API answers no preflight;
 * - `Sec-Fetch-Site: same-origin` (set by the browser, not by page scripts);
 * - an `Origin` whose host is this API's `Host`.
 */
export function assertNotCrossSite(request: RequestInfo): void {
  const h = request.headers;
  if (h[CSRF_HEADER] === '1') return;
  if (h['sec-fetch-site'] === 'same-origin') return;
  const origin = h.origin;
  if (origin && origin !== 'null' && h.host) {
    try {
      if (new URL(origin).host === h.host) return;
    } catch {
      // A malformed Origin proves nothing.
    }
  }
  throw new AppError(
    'CSRF_REJECTED',
    `a change made with a session cookie needs the header "${CSRF_HEADER}: 1" (or a same-origin Origin); API clients should use Authorization: Bearer <token>`,
  );
}
