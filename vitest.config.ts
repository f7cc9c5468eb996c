import { defineConfig } from 'vitest/config';

// One runner for the whole tree. Unit tests (`*.test.ts`) sit beside the code; integration
// tests (`*.integration.test.ts`) talk to the machine's real Postgres and Redis, each run with
// its own database and key prefix. Tests that need a Redis Cluster start a local one on first
// use; test/global-setup.ts stops it when the run ends.
export default defineConfig({
  test: {
    include: ['{apps,packages,test,scripts}/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    exclude: ['**/node_modules/**', '**/.next/**'],
    // The machine's Redis persists nothing: processes the tests start may use it (their keys
    // are throw-away), instead of refusing it as a production process does.
    env: { REDIS_VOLATILE_OK: 'true' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
