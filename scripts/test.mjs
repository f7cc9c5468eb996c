#!/usr/bin/env node
// `npm test`: the whole suite against the machine's real Postgres, Redis, embedded ClickHouse,
// real HTTP servers and the synthetic web. Generates the Prisma client first when it is missing,
// then runs vitest and closes with one plain line: "N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';

if (!existsSync('apps/coordinator/src/db/generated/client.ts')) {
  spawnSync('node', ['scripts/prisma-generate.mjs', '--quiet'], { stdio: 'inherit' });
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
  { stdio: 'inherit' },
);
if (existsSync(report)) {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  console.log(`${j.numPassedTests} passed, ${j.numFailedTests} failed, ${skipped} skipped`);
}
process.exit(r.status ?? 1);
