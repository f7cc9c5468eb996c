/**
 * Analytics store over ClickHouse: embedded chdb on a folder by default, a ClickHouse server
 * when a URL is given, the same SQL on both. Numbered migrations in `./migrations`, one zod
 * row schema and one batch insert per table written directly (`fetches`, `pages`), each the
 * schema of the message it comes from (@crawler/domain/messages); `urls` and `captures` are fed
 * from `fetches` by materialized views, their rows picked from the fetch row's fields.
 */
export { openAnalytics, type AnalyticsOptions, type AnalyticsStore } from './open-analytics';
export { fetchRowSchema, type FetchRow } from './fetch-row';
export { pageRowSchema, type PageRow } from './page-row';
export type { UrlState } from './url-state';
export type { CaptureRow } from './capture-row';
export type { FetchStats } from './fetch-stats';
export { compileFastCheck } from './fast-check';
export { AnalyticsError, type AnalyticsErrorCode } from './analytics-errors';
