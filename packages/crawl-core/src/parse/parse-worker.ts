import { parsePage, type ParsedPage, type ParsePageInput } from './parse-page';

export { pageTask } from './page-task';
export { archiveTask } from '../archive/archive-task';
export { sitemapTask } from './sitemap-task';
export { robotsTask } from './robots-task';

/**
 * The parse pool's tasks, in a worker thread: `parsePage` (the default), `pageTask` (records,
 * parse, links and feed text of one fetched page) and `archiveTask` (hash and records of any
 * other response), `sitemapTask` (a sitemap document's entries) and `robotsTask` (a large
 * robots.txt's rules). `npm run build` compiles this file to
 * `dist/parse-worker.js` beside each bundle that runs an agent; from source it is loaded
 * through `parse-worker.mjs`, which makes this TypeScript file importable in a plain Node worker.
 */
export default function parseTask(input: ParsePageInput): ParsedPage {
  return parsePage(input);
}
