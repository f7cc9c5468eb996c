export {
  telemetryRowSchema,
  type TelemetryRow,
  type TelemetryRowInput,
  TELEMETRY_ROW_DEFAULTS,
} from './telemetry';
export {
  parsedPageSchema,
  type ParsedPageMessage,
  pagePartition,
  MAX_PAGE_LINKS,
} from './parsed-page';
export { heartbeatSchema, type Heartbeat, heartbeatsOf } from './heartbeat';
export { hostPolicyNoticeSchema, type HostPolicyNotice } from './policy-notice';
export { storedRobotsMetaSchema, type StoredRobotsMeta } from './robots-entry';
export { liveCrawlSettingsSchema, type LiveCrawlSettings, userAgentOf } from './crawl-settings';
export {
  telemetryStreamKey,
  pagesStreamKey,
  pagesDroppedKey,
  PAGES_INGEST_GROUP,
  agentsKey,
  policyChannelKey,
  crawlSettingsKey,
  blockRulesKey,
} from './keys';
export { safeParseJson } from './safe-parse-json';
