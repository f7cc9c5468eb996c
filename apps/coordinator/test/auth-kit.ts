import pg from 'pg';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import type { Role } from '../src/auth/roles';
import { Coordinator } from '../src/coordinator';
import { httpCall, sessionCookieOf, type HttpReply } from './http-call';
import { makeTestEnv, type TestEnv } from './test-env';

export interface Account {
  id: string;
  email: string;
  password: string;
  /** An API token of this account with its full role. */
  token: string;
}

/**
 * A coordinator with one account per role (the admin from ADMIN_EMAIL / ADMIN_TOKEN, plus an
 * operator and a viewer created through the API), and a direct Postgres connection to check
 * what was written.
 */
export interface AuthKit {
  env: TestEnv;
  coordinator: Coordinator;
  url: string;
  db: pg.Client;
  accounts: Record<Role, Account>;
  /** A call with `Authorization: Bearer` of `as` (a role's token, or a raw token string). */
  call<T = unknown>(
    method: string,
    path: string,
    opts?: {
      as?: Role | { token: string };
      body?: string | object;
      headers?: Record<string, string>;
    },
  ): Promise<HttpReply<T>>;
  /** Logs in and returns the Cookie header value. */
  login(email: string, password: string): Promise<string>;
  count(table: string): Promise<number>;
  stop(): Promise<void>;
}

/** `overrides`: environment variables for the coordinator (see makeTestEnv). */
export async function startAuthKit(
  name: string,
  overrides: Record<string, string> = {},
): Promise<AuthKit> {
  const env = makeTestEnv(overrides);
  const coordinator = await Coordinator.start(env.config, createLogger(name, 'silent'));
  const db = new pg.Client({ connectionString: env.config.DATABASE_URL });
  await db.connect();
  const url = coordinator.url;
  const adminId = (
    await db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [env.admin.email])
  ).rows[0]!.id;
  const accounts = {
    admin: { id: adminId, ...env.admin },
  } as Record<Role, Account>;

  const call: AuthKit['call'] = (method, path, opts = {}) => {
    const as = opts.as ?? 'admin';
    const token = typeof as === 'string' ? accounts[as].token : as.token;
    return httpCall(url, method, path, {
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      headers: { authorization: `Bearer ${token}`, ...opts.headers },
    });
  };
  for (const role of ['operator', 'viewer'] as const) {
    const email = `${role}@test.local`;
    const password = `${role}-password-1`;
    const user = await call<{ id: string }>('POST', '/v1/users', {
      body: { email, password, role, name: role },
    });
    if (user.status !== 200) throw new Error(`creating ${role}: ${JSON.stringify(user.body)}`);
    const tok = await call<{ secret: string }>('POST', '/v1/tokens', {
      body: { name: `${role}-token`, user_id: user.body.id },
    });
    if (tok.status !== 200) throw new Error(`token for ${role}: ${JSON.stringify(tok.body)}`);
    accounts[role] = { id: user.body.id, email, password, token: tok.body.secret };
  }

  return {
    env,
    coordinator,
    url,
    db,
    accounts,
    call,
    async login(email, password) {
      const res = await httpCall(url, 'POST', '/v1/auth/login', {
        body: { email, password },
        headers: { 'x-crawler-csrf': '1' },
      });
      if (res.status !== 200) throw new Error(`login ${email}: ${JSON.stringify(res.body)}`);
      return sessionCookieOf(res);
    },
    async count(table) {
      return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
    },
    async stop() {
      await db.end();
      await coordinator.stop();
      const redis = await connectRedis(env.config.REDIS_URL, { cluster: env.config.REDIS_CLUSTER });
      await deleteKeysWithPrefix(redis, env.config.REDIS_PREFIX);
      redis.disconnect();
      await env.cleanup();
    },
  };
}
