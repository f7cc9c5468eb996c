export { telemetryRowSchema, type TelemetryRow, telemetryStreamKey } from './telemetry';
export {
  parsedPageSchema,
  type ParsedPageMessage,
  pagePartition,
  pagesStreamKey,
} from './parsed-page';
export {
  liveCrawlSettingsSchema,
  type LiveCrawlSettings,
  crawlSettingsKey,
  userAgentOf,
} from './crawl-settings';
