#!/usr/bin/env node
// `npm test`: the whole suite against the machine's real Postgres, Redis, embedded ClickHouse,
// real HTTP servers and the synthetic web. Generates the Prisma client first when it is missing
// and compiles the processes (`npm run build` without the console, whose e2e test runs its own
// `next build` when stale), so tests that spawn the agent or the CLI run the compiled JavaScript;
// then runs vitest and closes with one plain line: "N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';

if (!existsSync('apps/coordinator/src/db/generated/client.ts')) {
  spawnSync('node', ['scripts/prisma-generate.mjs', '--quiet'], { stdio: 'inherit' });
}
const build = spawnSync(
  'npm',
  ['run', 'build', '--', '--filter=!@crawler/console', '--output-logs=errors-only'],
  { stdio: 'inherit' },
);
if (build.status !== 0) {
  console.error('✗ npm run build failed; fix it first (the tests run the compiled processes)');
  process.exit(1);
}
mkdirSync('test-results', { recursive: true });
const report = 'test-results/vitest.json';
const r = spawnSync(
  'npx',
  [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  // Test processes run on the machine's Redis, which need not persist (keys are throw-away).
  { stdio: 'inherit', env: { ...process.env, REDIS_VOLATILE_OK: 'true' } },
);
if (existsSync(report)) {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  console.log(`${j.numPassedTests} passed, ${j.numFailedTests} failed, ${skipped} skipped`);
}
process.exit(r.status ?? 1);
