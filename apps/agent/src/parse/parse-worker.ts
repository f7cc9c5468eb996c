import { parsePage, type ParsedPage, type ParsePageInput } from './parse-page';

/**
 * The parse pool's task: one page per call, in a worker thread. Loaded through
 * `parse-worker.mjs`, which makes this TypeScript file importable in a plain Node worker.
 */
export default function parseTask(input: ParsePageInput): ParsedPage {
  return parsePage(input);
}
