export { CrawlAgent, agentsKey } from './agent';
export { ADDRESS_REFUSALS } from './lease/lease-run';
export { ContentIndex, type ContentOrigin } from './dedupe/content-index';
