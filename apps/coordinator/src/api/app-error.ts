import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { CrawlerError, type RetryClass } from '@crawler/domain/errors';

/** Stable error codes of the API, mapped once to HTTP statuses and tRPC codes. */
export type AppErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'CSRF_REJECTED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'BATCH_TOO_LARGE'
  | 'LOGIN_THROTTLED'
  | 'LOGIN_BUSY'
  | 'UNAVAILABLE'
  | 'INTERNAL';

/** The one table: each API code's HTTP status, tRPC code and retry class. */
export const APP_ERRORS: Record<
  AppErrorCode,
  { http: number; trpc: TRPC_ERROR_CODE_KEY; retry: RetryClass }
> = {
  BAD_REQUEST: { http: 400, trpc: 'BAD_REQUEST', retry: 'give_up' },
  UNAUTHENTICATED: { http: 401, trpc: 'UNAUTHORIZED', retry: 'give_up' },
  FORBIDDEN: { http: 403, trpc: 'FORBIDDEN', retry: 'give_up' },
  CSRF_REJECTED: { http: 403, trpc: 'FORBIDDEN', retry: 'give_up' },
  NOT_FOUND: { http: 404, trpc: 'NOT_FOUND', retry: 'give_up' },
  METHOD_NOT_ALLOWED: { http: 405, trpc: 'METHOD_NOT_SUPPORTED', retry: 'give_up' },
  CONFLICT: { http: 409, trpc: 'CONFLICT', retry: 'give_up' },
  PAYLOAD_TOO_LARGE: { http: 413, trpc: 'PAYLOAD_TOO_LARGE', retry: 'give_up' },
  BATCH_TOO_LARGE: { http: 413, trpc: 'PAYLOAD_TOO_LARGE', retry: 'give_up' },
  LOGIN_THROTTLED: { http: 429, trpc: 'TOO_MANY_REQUESTS', retry: 'backoff' },
  LOGIN_BUSY: { http: 429, trpc: 'TOO_MANY_REQUESTS', retry: 'backoff' },
  UNAVAILABLE: { http: 503, trpc: 'SERVICE_UNAVAILABLE', retry: 'backoff' },
  INTERNAL: { http: 500, trpc: 'INTERNAL_SERVER_ERROR', retry: 'give_up' },
};

/** An error the API answers with as it is: its code, message and details reach the caller. */
export class AppError extends CrawlerError {
  readonly retry: RetryClass;
  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** Machine-readable details, e.g. the rejected entries of a seed list. */
    readonly details?: unknown,
    /** Seconds after which a retry may succeed: sent as `Retry-After` (REST and tRPC). */
    readonly retryAfterS?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.retry = APP_ERRORS[code].retry;
  }
  get httpStatus(): number {
    return APP_ERRORS[this.code].http;
  }
  get trpcCode(): TRPC_ERROR_CODE_KEY {
    return APP_ERRORS[this.code].trpc;
  }
}

/**
 * What an error thrown by a service answers as: an AppError as it is; another CrawlerError
 * that may succeed later (`retry`, `backoff`: a store or Redis down) as 503 UNAVAILABLE naming
 * its code; null for anything else (a 500 whose cause is only logged).
 */
export function asAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof CrawlerError && err.retry !== 'give_up')
    return new AppError(
      'UNAVAILABLE',
      `temporarily unavailable (${err.code}); try again later`,
      undefined,
      undefined,
      { cause: err },
    );
  return null;
}

const FROM_TRPC = new Map<TRPC_ERROR_CODE_KEY, AppErrorCode>([
  ['PARSE_ERROR', 'BAD_REQUEST'],
  ['UNSUPPORTED_MEDIA_TYPE', 'BAD_REQUEST'],
  ['UNPROCESSABLE_CONTENT', 'BAD_REQUEST'],
  ['TIMEOUT', 'UNAVAILABLE'],
  ['PRECONDITION_FAILED', 'CONFLICT'],
  // The table's first code for each tRPC code (FORBIDDEN, not CSRF_REJECTED; PAYLOAD_TOO_LARGE,
  // not BATCH_TOO_LARGE; LOGIN_THROTTLED, not LOGIN_BUSY).
  ...Object.entries(APP_ERRORS)
    .reverse()
    .map(([code, e]) => [e.trpc, code as AppErrorCode] as const),
]);

/** The API code of a tRPC error that is not one of ours (e.g. tRPC's own input errors). */
export function appCodeOfTrpc(code: TRPC_ERROR_CODE_KEY): AppErrorCode {
  return FROM_TRPC.get(code) ?? 'INTERNAL';
}
