import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openFrontier, type Frontier } from '@crawler/frontier';
import { loadConfig } from '@crawler/domain/config';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { objectStoreFromSettings, type ObjectStore } from '@crawler/adapters/storage';
import { startTestS3Server } from '@crawler/testing';
import { startWebChild, type WebChild } from '../web-child';
import type { ChaosOptions } from './chaos-options';
import { freePort } from './child-process';
import { AgentSlot, CoordinatorProcess } from './crawl-processes';
import { FullDisk } from './disk-fault';
import { RedisProcess } from './redis-process';

/** Everything the scenario runs, and how to take it all down. */
export interface ChaosStack {
  web: WebChild;
  redisProcess: RedisProcess;
  /** The bench's own client and frontier view (Redis restarts under it: it reconnects). */
  redis: RedisClient;
  frontier: Frontier;
  prefix: string;
  coordinator: CoordinatorProcess;
  coordinatorDataDir: string;
  apiUrl: string;
  adminToken: string;
  slots: AgentSlot[];
  /** Agent 1's WARC folder, a small tmpfs (null without a disk fault). */
  disk: FullDisk | null;
  /** Where the agents ship WARC files and the coordinator reads them (s3rver). */
  warcStore: ObjectStore;
  /** Stops what still runs (children by SIGKILL), unmounts, drops the database. LIFO. */
  teardown(): Promise<void>;
}

const PREFIX = 'chaos';

async function adminQuery(databaseUrl: string, sql: string): Promise<void> {
  const u = new URL(databaseUrl);
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The variables every crawl process gets. Nothing is inherited from the bench's environment
 * but the basics: in particular not REDIS_VOLATILE_OK (the bench's Redis persists, and
 * production processes refuse one that does not), nor any crawler setting of the caller's.
 */
function baseEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  return { ...env, ...vars };
}

/**
 * Starts the synthetic web (logging the links it serves), a redis-server of its own with AOF,
 * s3rver for WARC files, a fresh Postgres database, the coordinator and the agent slots (agent
 * 1's WARC folder on a tmpfs when a disk fault is planned), then seeds the web's home pages.
 * @param dir a fresh folder for all of it.
 */
export async function startChaosStack(
  root: string,
  o: ChaosOptions,
  dir: string,
  log: (line: string) => void,
): Promise<ChaosStack> {
  const undo: Array<() => Promise<unknown>> = [];
  const teardown = async (): Promise<void> => {
    for (const f of undo.reverse()) {
      try {
        await f();
      } catch (err) {
        log(`teardown: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  try {
    const web = await startWebChild({
      root,
      hosts: o.hosts,
      seed: String(o.seed),
      dir: join(dir, 'web'),
      args: ['--log-links', ...(o.hostile ? [] : ['--no-hostile'])],
    });
    undo.push(() => web.stop());
    const redisProcess = await RedisProcess.start(join(dir, 'redis'));
    undo.push(() => redisProcess.stop());
    const s3 = await startTestS3Server();
    undo.push(() => s3.close());
    const databaseUrl = `postgresql://postgres@127.0.0.1:5432/crawler_chaos_${process.pid}_${randomBytes(3).toString('hex')}`;
    await adminQuery(databaseUrl, `CREATE DATABASE "${new URL(databaseUrl).pathname.slice(1)}"`);
    undo.push(() =>
      adminQuery(
        databaseUrl,
        `DROP DATABASE IF EXISTS "${new URL(databaseUrl).pathname.slice(1)}" WITH (FORCE)`,
      ),
    );

    const s3Vars = {
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    };
    const adminToken = `crw_${randomBytes(32).toString('base64url')}`;
    const coordinatorPort = await freePort();
    const apiUrl = `http://127.0.0.1:${coordinatorPort}`;
    const env = baseEnv({
      ...s3Vars,
      REDIS_URL: redisProcess.url,
      REDIS_PREFIX: PREFIX,
      FRONTIER_SHARDS: String(o.shards),
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      CRAWLER_DNS_MAP: web.dnsMap,
      CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
      CRAWLER_DEFAULT_GAP_MS: String(o.gapMs),
      // No depth or hop limit: every link the web shows is crawlable, or refused for a reason
      // the URL inspector can state afterwards (robots, a structural trap rule, a quality rule).
      // It cannot state "too deep" for a link it never saw, which would read as a lost URL.
      CRAWLER_MAX_DEPTH: '1000',
      CRAWLER_MAX_HOPS: '1000',
      AGENT_MAX_HOSTS: String(Math.max(256, o.hosts)),
      AGENT_PARSE_THREADS: '1',
      // Small WARC files, closed often: shipped to S3 while the crawl runs, not only at the end.
      WARC_MAX_FILE_BYTES: String(4 * 1024 * 1024),
      WARC_MAX_FILE_AGE_MS: '10000',
      FEED_MAX_BYTES: String(o.feedMaxBytes),
    });
    const coordinatorDataDir = join(dir, 'coordinator');
    mkdirSync(coordinatorDataDir, { recursive: true });
    const coordinator = new CoordinatorProcess(
      root,
      {
        ...env,
        DATA_DIR: coordinatorDataDir,
        COORDINATOR_PORT: String(coordinatorPort),
        ADMIN_TOKEN: adminToken,
      },
      apiUrl,
    );
    undo.push(() => coordinator.crash());
    await coordinator.start();

    const slots: AgentSlot[] = [];
    let disk: FullDisk | null = null;
    for (let i = 1; i <= o.agents; i++) {
      const dataDir = join(dir, `agent-${i}`);
      if (i === 1 && o.diskFault) {
        disk = await FullDisk.mount(join(dataDir, 'warc'), '64m');
        const mounted = disk;
        undo.push(() => mounted.unmount());
      }
      slots.push(new AgentSlot(root, `chaos-agent-${i}`, dataDir, await freePort(), env));
    }
    undo.push(() => Promise.all(slots.map((s) => s.crash())));
    for (const s of slots) s.start();
    await Promise.all(slots.map((s) => s.waitUp()));

    const redis = await connectRedis(redisProcess.url);
    // It reconnects by itself when Redis restarts; calls made meanwhile fail and are retried.
    redis.on('error', () => undefined);
    undo.push(async () => redis.disconnect());
    const frontier = await openFrontier(
      loadConfig({
        REDIS_URL: redisProcess.url,
        REDIS_PREFIX: PREFIX,
        FRONTIER_SHARDS: String(o.shards),
      }),
      redis,
    );
    const warcStore = objectStoreFromSettings({ dataDir: dir, ...s3Vars });
    return {
      web,
      redisProcess,
      redis,
      frontier,
      prefix: PREFIX,
      coordinator,
      coordinatorDataDir,
      apiUrl,
      adminToken,
      slots,
      disk,
      warcStore,
      teardown,
    };
  } catch (err) {
    await teardown();
    throw err;
  }
}

/** POSTs the web's home pages as seeds. */
export async function seedWeb(stack: ChaosStack, seeds: string[]): Promise<void> {
  const r = await fetch(`${stack.apiUrl}/v1/seeds`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${stack.adminToken}`,
    },
    body: JSON.stringify({ urls: seeds }),
  });
  if (!r.ok) throw new Error(`POST /v1/seeds: ${r.status} ${await r.text()}`);
}
