// Whether the console's production build (`apps/console/.next`) is older than what it is built
// from: its own sources and the workspace code it bundles (`@crawler/domain`). Plain JavaScript:
// `npm start` asks before anything is built; the console tests ask too.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** apps/console */
export const CONSOLE_DIR = join(ROOT, 'apps/console');

/** What a build reads, relative to the repository. */
const SOURCES = [
  'apps/console/app',
  'apps/console/components',
  'apps/console/lib',
  'apps/console/instrumentation.ts',
  'apps/console/next.config.ts',
  'apps/console/package.json',
  'apps/console/tsconfig.json',
  'packages/domain/src',
];

function newestIn(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((m, f) => Math.max(m, newestIn(join(path, f))), st.mtimeMs);
}

/** True when the production build is missing or older than any of its sources. */
export function consoleBuildIsStale() {
  const id = join(CONSOLE_DIR, '.next/BUILD_ID');
  if (!existsSync(id)) return true;
  const built = statSync(id).mtimeMs;
  return SOURCES.map((s) => join(ROOT, s)).some((p) => existsSync(p) && newestIn(p) > built);
}
