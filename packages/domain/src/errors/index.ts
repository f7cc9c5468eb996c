import type { z } from 'zod';

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

/**
 * The base of a module's one error type whose retry class follows from its code alone
 * (`StorageError`, `WarcError`, `AnalyticsError`): `retryOf` names the codes that may pass on
 * another try; every other code is `give_up`.
 */
export abstract class CodedError<C extends string> extends CrawlerError {
  readonly retry: RetryClass;

  constructor(
    readonly code: C,
    message: string,
    retryOf: Partial<Record<C, RetryClass>>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.retry = retryOf[code] ?? 'give_up';
  }
}

/**
 * Raised at start-up when a server the process needs (Redis, Postgres) does not answer: says
 * where (`at`, a URL without its password), why, and how to start it. Worth retrying later.
 */
export abstract class ServerUnavailableError extends CrawlerError {
  readonly retry = 'backoff';

  constructor(server: string, at: string, cause: unknown, howToFix: string) {
    super(
      `${server} is not reachable at ${at} (${cause instanceof Error ? cause.message : String(cause)}). ${howToFix}`,
    );
  }
}

/**
 * `value` parsed by `schema`, or the error `fail` makes of its first problem (`path: message`,
 * e.g. `dir: Too small`): how a module rejects bad options, naming the option.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  fail: (problem: string) => Error,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw fail(`${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`);
}
