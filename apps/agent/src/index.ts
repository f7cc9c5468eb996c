export { CrawlAgent, agentsKey } from './agent';
