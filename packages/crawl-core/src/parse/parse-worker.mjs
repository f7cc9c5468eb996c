// The parse worker when the agent runs from source (vitest, `node --import tsx`); compiled
// processes (`npm run build`) run `dist/parse-worker.js` instead, chosen by `workerFile`
// (`@crawler/adapters/workers`).
// Piscina starts its workers as plain Node threads and imports their file by path, so a
// worker cannot load `parse-worker.ts` by itself: under vitest nothing transpiles TypeScript
// in a new thread, and under `node --import tsx` whether the worker inherits the loader
// depends on the Node version. `tsImport` loads the worker (and everything it imports,
// `@crawler/domain` and `@crawler/adapters` included) through tsx's own namespaced loader, which works in both cases
// and never collides with a tsx already registered process-wide.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./parse-worker.ts', import.meta.url);

export default worker.default;
export const pageTask = worker.pageTask;
export const archiveTask = worker.archiveTask;
export const sitemapTask = worker.sitemapTask;
