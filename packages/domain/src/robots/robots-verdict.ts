/**
 * What a robots.txt fetch ended with: a final HTTP status (redirects already followed, at
 * most 5), or a failure. `retryAfterS` is the response's Retry-After, in seconds, if any.
 */
export type RobotsFetchOutcome =
  | { status: number; retryAfterS?: number }
  | { error: 'timeout' | 'network' | 'too_many_redirects' };

/**
 * What to do with the host: parse the body (`rules`), fetch anything (`allow_all`), or fetch
 * nothing until the robots.txt is fetched again in `retryAfterS` seconds (`disallow_all`).
 */
export type RobotsVerdict =
  { kind: 'rules' } | { kind: 'allow_all' } | { kind: 'disallow_all'; retryAfterS: number };

/** First retry of an unreachable robots.txt, in seconds; doubles with each failed attempt. */
export const ROBOTS_RETRY_BASE_S = 300;
/** Longest wait between retries: the robots.txt cache lifetime (24 h). */
export const ROBOTS_RETRY_MAX_S = 24 * 3600;

/**
 * RFC 9309 §2.3.1 status handling: what to do with a robots.txt fetch outcome.
 *
 * - 2xx → `rules` (the caller parses the body);
 * - 4xx ("unavailable", incl. 401, 403, 404, 410) → `allow_all`;
 * - 429 (Too Many Requests) → `disallow_all`: it says the server is overloaded, like a 5xx;
 * - 5xx, timeout, network error ("unreachable") → `disallow_all` — never "allow everything";
 * - too many redirects, or a 3xx/1xx/other status left over → `disallow_all`: RFC 9309 lets a
 *   crawler treat more than 5 redirects as unavailable, we fail closed instead, as politeness
 *   is a hard rule and a redirect loop is more often a broken server than a missing file.
 *
 * The retry delay is `ROBOTS_RETRY_BASE_S × 2^attempt`, at least the server's Retry-After,
 * at most `ROBOTS_RETRY_MAX_S`.
 *
 * @param attempt how many fetches of this robots.txt have already failed in a row (0 first)
 */
export function robotsVerdict(outcome: RobotsFetchOutcome, attempt = 0): RobotsVerdict {
  if ('status' in outcome) {
    const { status } = outcome;
    if (status >= 200 && status < 300) return { kind: 'rules' };
    if (status >= 400 && status < 500 && status !== 429) return { kind: 'allow_all' };
    return { kind: 'disallow_all', retryAfterS: retryDelay(attempt, outcome.retryAfterS) };
  }
  return { kind: 'disallow_all', retryAfterS: retryDelay(attempt, undefined) };
}

function retryDelay(attempt: number, retryAfterS: number | undefined): number {
  const n = Number.isFinite(attempt) && attempt > 0 ? Math.min(Math.floor(attempt), 20) : 0;
  const backoff = ROBOTS_RETRY_BASE_S * 2 ** n;
  const server = retryAfterS !== undefined && Number.isFinite(retryAfterS) ? retryAfterS : 0;
  return Math.min(ROBOTS_RETRY_MAX_S, Math.max(backoff, server));
}
