import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '@crawler/domain/config';
import { uniquePrefix } from '@crawler/testing';
import { dropDatabase } from '../src/db/migrate';

/**
 * A private environment for one integration test file: its own Postgres database, Redis key
 * prefix and data folder, all removed by `cleanup()`. The coordinator creates an admin
 * (ADMIN_EMAIL / ADMIN_PASSWORD) and stores ADMIN_TOKEN as an admin API token at start.
 */
export interface TestEnv {
  config: Config;
  dataDir: string;
  admin: { email: string; password: string; token: string };
  /** `Authorization: Bearer <admin token>`, to spread into request headers. */
  auth: { authorization: string };
  cleanup(): Promise<void>;
}

export function makeTestEnv(overrides: Record<string, string> = {}): TestEnv {
  const dataDir = mkdtempSync(join(tmpdir(), 'crawler-test-'));
  const db = `crawler_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const base = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const u = new URL(base);
  u.pathname = `/${db}`;
  const admin = {
    email: 'admin@test.local',
    password: randomBytes(12).toString('base64url'),
    token: `crw_${randomBytes(32).toString('base64url')}`,
  };
  const config = loadConfig({
    DATABASE_URL: u.toString(),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: uniquePrefix('e2e'),
    DATA_DIR: dataDir,
    COORDINATOR_PORT: '0',
    FRONTIER_SHARDS: '16',
    LOG_LEVEL: 'warn',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    ADMIN_TOKEN: admin.token,
    // The machine's Redis persists nothing; each test's keys are throw-away anyway.
    REDIS_VOLATILE_OK: 'true',
    // OWASP's scrypt cost (2^17) takes most of a second a hash on a busy test machine; tests
    // of the production cost override this.
    PASSWORD_SCRYPT_LOG2_N: '14',
    ...overrides,
  });
  return {
    config,
    dataDir,
    admin,
    auth: { authorization: `Bearer ${admin.token}` },
    async cleanup() {
      await dropDatabase(config.DATABASE_URL);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Writes a JSON file into the test's data folder and returns its path. */
export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}
