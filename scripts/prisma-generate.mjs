#!/usr/bin/env node
// Generates the Prisma 7 client without downloading engines: Prisma's engine host is not
// reachable here and the generated client needs none (it talks to Postgres through
// @prisma/adapter-pg). The CLI still insists on a schema-engine path, so give it a placeholder.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const placeholder = join(tmpdir(), 'crawler-prisma-engine-placeholder');
if (!existsSync(placeholder)) {
  mkdirSync(tmpdir(), { recursive: true });
  writeFileSync(placeholder, '#!/bin/sh\necho "schema engine not available here" >&2\nexit 1\n');
  chmodSync(placeholder, 0o755);
}
execFileSync('npx', ['prisma', 'generate'], {
  stdio: process.argv.includes('--quiet') ? 'ignore' : 'inherit',
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholder,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
