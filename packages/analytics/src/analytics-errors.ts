import { CodedError } from '@crawler/domain/errors';

/** Stable codes of {@link AnalyticsError}: branch on these, never on the message. */
export type AnalyticsErrorCode =
  /** openAnalytics options failed validation. */
  | 'ANALYTICS_BAD_OPTIONS'
  /** A row given to an insert failed its schema; the message names the row and field. */
  | 'ANALYTICS_BAD_ROW'
  /** An applied migration's file changed since it ran (migrations are never edited). */
  | 'ANALYTICS_MIGRATION_CHANGED'
  /** ClickHouse (embedded or server) rejected a statement; the engine error is the cause. */
  | 'ANALYTICS_QUERY_FAILED'
  /** The store was closed. */
  | 'ANALYTICS_CLOSED';

/** The one error type of the analytics store. */
export class AnalyticsError extends CodedError<AnalyticsErrorCode> {
  override readonly name = 'AnalyticsError';

  /** A failed query may pass on another try (the engine's fault); the others will not. */
  constructor(code: AnalyticsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, { ANALYTICS_QUERY_FAILED: 'retry' }, options);
  }
}

/** Wraps an engine error (chdb or server) as ANALYTICS_QUERY_FAILED, keeping it as the cause. */
export function queryFailed(what: string, cause: unknown): AnalyticsError {
  const detail = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
  return new AnalyticsError('ANALYTICS_QUERY_FAILED', `${what}: ${detail}`, { cause });
}
