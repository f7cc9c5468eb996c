export { CrawlAgent, agentsKey } from './agent';
export { ADDRESS_REFUSALS } from './lease/lease-run';
export { ContentIndex, type ContentOrigin } from './dedupe/content-index';
export { serveMetrics } from './metrics/serve-metrics';
export { PagePublisher } from './feed/page-publisher';
