export { CrawlAgent } from './agent';
export { zeroCounters, type AgentCounters } from './agent-resources';
export { agentsKey, contentIndexKeys, robotsKey, sitemapKey, type ShardLayout } from './keys';
export { ADDRESS_REFUSALS } from './lease/lease-run';
export { ContentIndex, type ContentOrigin } from './dedupe/content-index';
export { serveMetrics, serveMetricsUnlessOff } from './metrics/serve-metrics';
export { PagePublisher } from './feed/page-publisher';
export { safetyMarginMs } from './lease/host-pacer';
export { LoopLag } from './fetch/loop-lag';
