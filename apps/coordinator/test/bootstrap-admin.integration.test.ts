import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ConfigError } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { bootstrapAdmin } from '../src/auth/bootstrap-admin';
import { sha256Hex } from '../src/auth/secrets';
import { migrate } from '../src/db/migrate';
import { createDb } from '../src/db/prisma';
import { Store } from '../src/db/store';
import { makeTestEnv, type TestEnv } from './test-env';

// The first start of an installation: ADMIN_EMAIL / ADMIN_PASSWORD and ADMIN_TOKEN.
const log = createLogger('bootstrap', 'silent');
let env: TestEnv;
let store: Store;
let db: pg.Client;
const newToken = () => `crw_${randomBytes(32).toString('base64url')}`;

beforeAll(async () => {
  env = makeTestEnv();
  await migrate(env.config.DATABASE_URL);
  store = new Store(createDb(env.config.DATABASE_URL));
  db = new pg.Client({ connectionString: env.config.DATABASE_URL });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await store?.disconnect();
  await env?.cleanup();
});

const users = async () =>
  (
    await db.query<{ email: string; role: string; has_password: boolean }>(
      'SELECT email, role, password_hash IS NOT NULL AS has_password FROM users ORDER BY email',
    )
  ).rows;

describe('bootstrapAdmin', () => {
  it('refuses ADMIN_EMAIL without ADMIN_PASSWORD, naming the missing variable', async () => {
    await expect(bootstrapAdmin(store, { ADMIN_EMAIL: 'a@test.local' }, log)).rejects.toThrow(
      ConfigError,
    );
    await expect(bootstrapAdmin(store, { ADMIN_EMAIL: 'a@test.local' }, log)).rejects.toThrow(
      /ADMIN_PASSWORD/,
    );
    expect(await users()).toEqual([]);
  });

  it('ADMIN_TOKEN alone: stored as an admin token owned by a password-less admin', async () => {
    const token = newToken();
    await bootstrapAdmin(store, { ADMIN_TOKEN: token }, log);
    expect(await users()).toEqual([
      { email: 'admin@localhost', role: 'admin', has_password: false },
    ]);
    const rows = await db.query<{ role: string; name: string }>(
      'SELECT role, name FROM api_tokens WHERE token_hash = $1',
      [sha256Hex(token)],
    );
    expect(rows.rows).toEqual([{ role: 'admin', name: 'ADMIN_TOKEN' }]);
    // A second start changes nothing.
    await bootstrapAdmin(store, { ADMIN_TOKEN: token }, log);
    const n = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_tokens');
    expect(n.rows).toEqual([{ n: 1 }]);
  });

  it('ADMIN_EMAIL is not created once users exist (no password reset by restart)', async () => {
    await bootstrapAdmin(
      store,
      { ADMIN_EMAIL: 'late@test.local', ADMIN_PASSWORD: 'late-password' },
      log,
    );
    expect((await users()).map((u) => u.email)).toEqual(['admin@localhost']);
  });

  it('a revoked ADMIN_TOKEN stays revoked across restarts', async () => {
    const token = newToken();
    await bootstrapAdmin(store, { ADMIN_TOKEN: token }, log);
    await db.query('UPDATE api_tokens SET revoked_at = now() WHERE token_hash = $1', [
      sha256Hex(token),
    ]);
    await bootstrapAdmin(store, { ADMIN_TOKEN: token }, log);
    const rows = await db.query<{ revoked: boolean }>(
      'SELECT revoked_at IS NOT NULL AS revoked FROM api_tokens WHERE token_hash = $1',
      [sha256Hex(token)],
    );
    expect(rows.rows).toEqual([{ revoked: true }]);
  });

  it('coordinators starting together create one admin', async () => {
    const env2 = makeTestEnv();
    await migrate(env2.config.DATABASE_URL);
    const stores = [0, 1, 2].map(() => new Store(createDb(env2.config.DATABASE_URL)));
    try {
      const cfg = {
        ADMIN_EMAIL: 'Race@Test.Local',
        ADMIN_PASSWORD: 'race-password',
        ADMIN_TOKEN: newToken(),
      };
      await Promise.all(stores.map((s) => bootstrapAdmin(s, cfg, log)));
      const c = new pg.Client({ connectionString: env2.config.DATABASE_URL });
      await c.connect();
      const u = await c.query('SELECT email, role FROM users');
      const t = await c.query('SELECT count(*)::int AS n FROM api_tokens');
      await c.end();
      expect(u.rows).toEqual([{ email: 'race@test.local', role: 'admin' }]);
      expect(t.rows).toEqual([{ n: 1 }]);
    } finally {
      await Promise.all(stores.map((s) => s.disconnect()));
      await env2.cleanup();
    }
  });
});
