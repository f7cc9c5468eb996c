import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// `npm run bench -- <name> [flags]`: benchmarks that print, as their last stdout line, one JSON
// object with their figures. Each lives in scripts/bench/<name>.ts. They work on a fresh clone
// after `npm ci`: the Prisma client some of them load is generated first when it is missing.
const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(`${root}apps/coordinator/src/db/generated/client.ts`)) {
  const r = spawnSync(process.execPath, ['scripts/prisma-generate.mjs', '--quiet'], {
    cwd: root,
    stdio: ['ignore', 2, 'inherit'],
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// Benches run on throw-away keys: the coordinators and agents they start (in this process or as
// children) accept a Redis that persists nothing.
process.env.REDIS_VOLATILE_OK ??= 'true';
const [name, ...args] = process.argv.slice(2);
const benches: Record<
  string,
  () => Promise<{ run(args: string[]): Promise<Record<string, unknown>> }>
> = {
  agent: () => import('./bench/agent'),
  chaos: () => import('./bench/chaos'),
  console: () => import('./bench/console'),
  e2e: () => import('./bench/e2e'),
  frontier: () => import('./bench/frontier'),
  ingest: () => import('./bench/ingest'),
  quality: () => import('./bench/quality'),
};
const load = name ? benches[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join('|')}> [flags]`);
  process.exit(2);
}
const result = await (await load()).run(args);
console.log(JSON.stringify(result));
process.exit(0);
