import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import { urlFingerprint } from '@crawler/domain/url';
import {
  keySlot,
  readClusterNodes,
  restoreSlotOwner,
  sharedLocalRedisCluster,
  slotOwner,
  type ClusterNode,
} from '@crawler/testing';
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
  /** `crawler …` as a child process with the token of `as` (default admin). */
  cli(args: string[], as?: Role): Promise<CliRun>;
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
    cli: (args, as = 'admin') =>
      runCrawlerCli(args, { url, token: accounts[as].token, dataDir: env.dataDir }),
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

const CRAWLER_BIN = fileURLToPath(new URL('../bin/crawler.mjs', import.meta.url));

/** What a `crawler` command printed, and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * The `crawler` command as automation runs it: a child process talking to the coordinator at
 * `url` with an API token from the environment (exit code, stdout, stderr).
 */
export function runCrawlerCli(
  args: string[],
  opts: { url: string; token: string; dataDir: string; timeoutMs?: number },
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CRAWLER_BIN, ...args],
      {
        env: {
          ...process.env,
          DATA_DIR: opts.dataDir,
          COORDINATOR_URL: opts.url,
          CRAWLER_API_TOKEN: opts.token,
        },
        timeout: opts.timeoutMs ?? 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

/**
 * An AuthKit whose coordinator runs on the local Redis Cluster (FRONTIER_SHARDS 128), with
 * `hosts` hosts of `urlsPerHost` URLs queued in `shard`, for tests that move that shard. Pick a
 * shard whose tag no other suite on the shared cluster uses. `stop()` moves its slot home first.
 */
export interface ShardMoveKit extends AuthKit {
  slot: number;
  /** The master serving the slot at the start. */
  home: ClusterNode;
  /** Another master (the one with the lowest port). */
  to: ClusterNode;
  masters: ClusterNode[];
  /** The slot's owner now. */
  ownerNow(): Promise<ClusterNode | undefined>;
}

export async function startShardMoveKit(
  name: string,
  shard: number,
  urls: { hosts: number; urlsPerHost: number },
): Promise<ShardMoveKit> {
  const cluster = await sharedLocalRedisCluster();
  const port = cluster.ports[0]!;
  const slot = keySlot(`{${shard}}`);
  const nodes = await readClusterNodes(port);
  const home = slotOwner(nodes, slot)!;
  const masters = nodes.filter((n) => n.master).sort((a, b) => a.port - b.port);
  const kit = await startAuthKit(name, {
    REDIS_URL: cluster.url,
    REDIS_CLUSTER: '1',
    FRONTIER_SHARDS: '128',
  });
  const { frontier } = kit.coordinator.services;
  const hosts: string[] = [];
  for (let i = 0; hosts.length < urls.hosts; i++)
    if (frontier.shardOf(`h${i}.${name}.test`) === shard) hosts.push(`h${i}.${name}.test`);
  const queued = hosts.flatMap((host) =>
    Array.from({ length: urls.urlsPerHost }, (_, i) => {
      const url = `http://${host}/${i}`;
      return { url, urlFp: urlFingerprint(url), host, depth: 0, source: 'seed' as const };
    }),
  );
  await frontier.enqueue(queued).catch(async (err: unknown) => {
    await kit.stop();
    throw err;
  });
  return {
    ...kit,
    slot,
    home,
    to: masters.find((m) => m.id !== home.id)!,
    masters,
    ownerNow: async () => slotOwner(await readClusterNodes(port), slot),
    async stop() {
      await restoreSlotOwner(slot, home).catch(() => undefined);
      await kit.stop();
    },
  };
}
