import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlAgent } from '@crawler/crawl-core';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import { startTestRedisServer, type TestRedisServer } from '@crawler/testing';
import { Coordinator } from '../src/coordinator';
import { makeTestEnv, type TestEnv } from './test-env';

// Production processes refuse a Redis that would lose the frontier; REDIS_VOLATILE_OK (tests,
// benches, the demo) lets them through. A redis-server of the test's own that persists nothing.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const log = createLogger('redis-durability', 'silent');
let volatile: TestRedisServer;
let env: TestEnv;

beforeAll(async () => {
  volatile = await startTestRedisServer(['--save', '', '--appendonly', 'no']);
  env = makeTestEnv({ REDIS_URL: volatile.url, REDIS_VOLATILE_OK: 'false' });
});

afterAll(async () => {
  await env?.cleanup();
  await volatile?.stop();
});

describe('a Redis that persists nothing', () => {
  it('is refused by Coordinator.start and CrawlAgent.create, naming the fix', async () => {
    const err = await Coordinator.start(env.config, log).then(
      () => null,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(err?.code).toBe('REDIS_NOT_DURABLE');
    expect(err?.message).toContain('--appendonly yes --appendfsync everysec');

    const redis = await connectRedis(volatile.url);
    try {
      await expect(CrawlAgent.create(env.config, redis, log)).rejects.toMatchObject({
        code: 'REDIS_NOT_DURABLE',
      });
    } finally {
      redis.disconnect();
    }
  });

  it('is accepted with REDIS_VOLATILE_OK=true', async () => {
    const coordinator = await Coordinator.start({ ...env.config, REDIS_VOLATILE_OK: true }, log);
    await coordinator.stop();
    const redis = await connectRedis(volatile.url);
    await deleteKeysWithPrefix(redis, env.config.REDIS_PREFIX);
    redis.disconnect();
  });

  it('stops the compiled coordinator (as `npm start` runs it) with the fix on stderr', async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--quiet', 'coordinator'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const run = await new Promise<{ code: number | null; err: string }>((resolve) => {
      execFile(
        process.execPath,
        ['apps/coordinator/dist/main.js'],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH,
            DATABASE_URL: env.config.DATABASE_URL,
            REDIS_URL: volatile.url,
            REDIS_PREFIX: env.config.REDIS_PREFIX,
            DATA_DIR: env.dataDir,
            COORDINATOR_PORT: '0',
            LOG_LEVEL: 'warn',
          },
          timeout: 60_000,
        },
        (error, _stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, err: stderr }),
      );
    });
    expect(run.code).toBe(1);
    expect(run.err).toContain('✗ Redis would lose the crawl');
    expect(run.err).toContain('redis-server --appendonly yes --appendfsync everysec');
    expect(run.err).not.toMatch(/\n\s+at /); // a message, not a stack trace
  }, 120_000);
});
