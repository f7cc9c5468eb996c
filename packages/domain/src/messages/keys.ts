/**
 * The Redis keys of the messages agents and the coordinator exchange, all built here. Each takes
 * REDIS_PREFIX; the frontier's own keys are built by its key builder (FrontierKeys).
 */

/** The stream agents append telemetry batches to (one entry = a JSON array of fetch rows). */
export function telemetryStreamKey(prefix: string): string {
  return `${prefix}:telemetry`;
}

/** Stream key of one partition of the feed: `${prefix}:pages.parsed:{n}` (its own cluster slot). */
export function pagesStreamKey(prefix: string, partition: number): string {
  return `${prefix}:pages.parsed:{${partition}}`;
}

/**
 * Pages of one feed partition trimmed before a consumer group had acknowledged them (a hash:
 * group → pages), beside its stream in the same cluster slot. Written by the feed's trim
 * (`FEED_OVERFLOW=drop`) and by unregistering a group with pages it had not read.
 */
export function pagesDroppedKey(prefix: string, partition: number): string {
  return `${prefix}:pages.parsed:{${partition}}:dropped`;
}

/**
 * The coordinator's consumer group on every feed partition (the `pages` ingest into ClickHouse).
 * Agents of a coordinated crawl keep the feed's pages for it even before it exists.
 */
export const PAGES_INGEST_GROUP = 'ingest';

/** The agents' heartbeat set (sorted set: agent id → last beat, epoch ms). */
export function agentsKey(prefix: string): string {
  return `${prefix}:agents`;
}

/** Pub/sub channel where host policy changes are announced to agents (JSON HostPolicyNotice). */
export function policyChannelKey(prefix: string): string {
  return `${prefix}:policy`;
}

/** The key holding the crawl settings in effect (JSON LiveCrawlSettings). */
export function crawlSettingsKey(prefix: string): string {
  return `${prefix}:settings`;
}

/**
 * The Redis key (a hash) where the coordinator publishes every operator block rule for agents:
 * field `version` (an integer, incremented at each publication) and field `rules` (the JSON of
 * `BlockRuleSet` (traps)). Agents read `version` every few seconds and `rules` when it changed.
 */
export function blockRulesKey(prefix: string): string {
  return `${prefix}:block-rules`;
}
