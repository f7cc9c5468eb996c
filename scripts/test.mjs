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

/**
 * Tests that judge timing across many processes (politeness gaps of a crawl through kills, a
 * drain within a bound while a slot migrates, a browser following a slot migration through the
 * console within its 30 s) run after the rest, one file at a time, so that the other files' load
 * does not decide them: the same assertions, on a machine that is not running 2 other test files
 * at once.
 */
const SOLO = [
  'scripts/bench/chaos/chaos.integration.test.ts',
  'packages/frontier/src/shard-move.integration.test.ts',
  'test/console/shard-move.e2e.test.ts',
];
const args = process.argv.slice(2);

/** One vitest run; returns its exit status and its counts from the JSON report. */
function vitest(name, extra) {
  const report = `test-results/vitest${name}.json`;
  const r = spawnSync(
    'npx',
    [
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...extra,
    ],
    // Test processes run on the machine's Redis, which need not persist (keys are throw-away).
    { stdio: 'inherit', env: { ...process.env, REDIS_VOLATILE_OK: 'true' } },
  );
  const counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(report)) {
    const j = JSON.parse(readFileSync(report, 'utf8'));
    counts.passed = j.numPassedTests ?? 0;
    counts.failed = j.numFailedTests ?? 0;
    counts.skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  }
  return { status: r.status ?? 1, counts };
}

// With arguments (files, filters), one run of exactly what was asked.
const runs =
  args.length > 0
    ? [vitest('', args)]
    : [
        vitest(
          '',
          SOLO.flatMap((f) => ['--exclude', f]),
        ),
        vitest('-solo', [...SOLO, '--no-file-parallelism']),
      ];
const total = { passed: 0, failed: 0, skipped: 0 };
for (const { counts } of runs) for (const k of Object.keys(total)) total[k] += counts[k];
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(runs.every((r) => r.status === 0) ? 0 : 1);
