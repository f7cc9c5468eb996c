import { parsePage, type ParsedPage, type ParsePageInput } from './parse-page';

/**
 * The parse pool's task: one page per call, in a worker thread. `npm run build` compiles it to
 * `dist/parse-worker.js` beside each bundle that runs an agent; from source it is loaded
 * through `parse-worker.mjs`, which makes this TypeScript file importable in a plain Node worker.
 */
export default function parseTask(input: ParsePageInput): ParsedPage {
  return parsePage(input);
}
