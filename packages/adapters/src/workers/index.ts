import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The file a worker thread runs, next to the module that starts it (`moduleUrl`, its
 * `import.meta.url`): compiled processes (`npm run build`) run `<name>.js` beside their bundle;
 * run from source (vitest, `node --import tsx`) it is `<name>.mjs`, a shim beside the TypeScript
 * module that loads `<name>.ts` through tsx (a new thread transpiles nothing by itself).
 * Throws, naming the fix, when a compiled worker is missing.
 */
export function workerFile(moduleUrl: string, name: string): string {
  const fromSource = /\.[cm]?tsx?$/.test(new URL(moduleUrl).pathname);
  if (fromSource) return fileURLToPath(new URL(`./${name}.mjs`, moduleUrl));
  const compiled = fileURLToPath(new URL(`./${name}.js`, moduleUrl));
  if (!existsSync(compiled)) {
    throw new Error(`the worker ${compiled} is missing: run \`npm run build\``);
  }
  return compiled;
}
