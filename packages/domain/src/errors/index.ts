/**
 * What whoever called a failed operation should do about it: `give_up` (the same call will
 * fail again: bad input, a missing thing, a configuration error), `retry` (a transient fault:
 * the same call may succeed at once or on another worker) or `backoff` (a dependency is down
 * or overloaded: wait before trying again).
 */
export type RetryClass = 'give_up' | 'retry' | 'backoff';

/**
 * The base of every error the crawler raises on purpose. `code` is stable and
 * UPPER_SNAKE_CASE (`STORAGE_NOT_FOUND`, `FETCH_DNS_NOT_FOUND`): callers branch on it, or on
 * `retry`, never on the message, which is for people and may change. The API maps these once
 * to HTTP statuses and tRPC codes (apps/coordinator/src/api/app-error.ts).
 */
export abstract class CrawlerError extends Error {
  /** Stable, UPPER_SNAKE_CASE, unique to the error's meaning. */
  abstract readonly code: string;
  /** What a caller should do about it. */
  abstract readonly retry: RetryClass;
}
