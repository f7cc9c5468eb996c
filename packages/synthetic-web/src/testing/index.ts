/**
 * Test helpers, importable as `@crawler/synthetic-web/testing`: a minimal polite reference
 * crawler (the baseline that reaches exactly `manifest.expected`) and a raw HTTP GET helper.
 */
export { extractLinks, referenceCrawl, type ReferenceCrawlOptions } from './reference-crawler.js';
export { httpGet, type GetOptions, type RawResponse } from './http-get.js';
