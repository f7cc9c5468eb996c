import { defineConfig } from 'vitest/config';

// One runner for the whole tree. Unit tests (`*.test.ts`) sit beside the code; integration
// tests (`*.integration.test.ts`) talk to the machine's real Postgres and Redis, each run with
// its own database and key prefix (see test/global-setup.ts).
export default defineConfig({
  test: {
    include: ['{apps,packages,test,scripts}/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/.next/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
