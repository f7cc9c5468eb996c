import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';

/** Stable error codes of the API, mapped once to HTTP statuses and tRPC codes. */
export type AppErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'CSRF_REJECTED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'LOGIN_THROTTLED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

const HTTP: Record<AppErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  CSRF_REJECTED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  LOGIN_THROTTLED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};
const TRPC: Record<AppErrorCode, TRPC_ERROR_CODE_KEY> = {
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHENTICATED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  CSRF_REJECTED: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  LOGIN_THROTTLED: 'TOO_MANY_REQUESTS',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
};

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** Machine-readable details, e.g. the rejected entries of a seed list. */
    readonly details?: unknown,
    /** Seconds after which a retry may succeed: sent as `Retry-After` (REST and tRPC). */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
  get httpStatus(): number {
    return HTTP[this.code];
  }
  get trpcCode(): TRPC_ERROR_CODE_KEY {
    return TRPC[this.code];
  }
}
