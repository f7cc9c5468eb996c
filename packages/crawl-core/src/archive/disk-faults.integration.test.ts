import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes, randomInt } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openFrontier, type Frontier } from '@crawler/frontier';
import { loadConfig, type Config } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { telemetryStreamKey, type TelemetryRow } from '@crawler/domain/messages';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { openObjectStore } from '@crawler/adapters/storage';
import { mountTestTmpfs, uniquePrefix, type TestTmpfs } from '@crawler/testing';
import { urlFingerprint } from '@crawler/domain/url';
import { readWarcRecordFromStore, WarcWriter, type HttpExchange } from '@crawler/adapters/warc';
import { CrawlAgent } from '../agent';
import { serveMetrics } from '../metrics/serve-metrics';

// Disk faults end to end: a real agent, a real Redis frontier, real HTTP hosts on loopback
// addresses, WARC files on a real 2 MiB tmpfs filled up to get ENOSPC.

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const log = createLogger('test', (process.env.TEST_LOG_LEVEL as 'warn' | undefined) ?? 'silent');

interface Web {
  dnsMap: Record<string, string>;
  url(host: string, path: string): string;
  requested(host: string): string[];
  close(): Promise<void>;
}

/** Hosts on their own loopback addresses (one port), each answering small HTML pages. */
async function startWeb(hosts: string[]): Promise<Web> {
  const seen: Array<{ host: string; path: string }> = [];
  const net = `127.${randomInt(128, 250)}.${randomInt(1, 250)}`;
  const dnsMap = Object.fromEntries(hosts.map((h, i) => [h, `${net}.${i + 1}`]));
  const servers: Server[] = [];
  let port = 0;
  for (const host of hosts) {
    const server = createServer((req, res) => {
      const path = req.url ?? '/';
      seen.push({ host: (req.headers.host ?? '').replace(/:\d+$/, ''), path });
      if (path === '/robots.txt') return void res.writeHead(404).end('none');
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        // Incompressible text: each record needs more than the last page of a file has left.
        .end(
          `<!doctype html><title>${host}${path}</title><p>${randomBytes(12_000).toString('base64')}</p>`,
        );
    });
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(port, dnsMap[host], () => resolve()),
    );
    const address = server.address();
    if (port === 0 && address !== null && typeof address === 'object') port = address.port;
    servers.push(server);
  }
  return {
    dnsMap,
    url: (host, path) => `http://${host}:${port}${path}`,
    requested: (host) => seen.filter((e) => e.host === host).map((e) => e.path),
    async close() {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}

interface Harness {
  config: Config;
  dataDir: string;
  redis: RedisClient;
  frontier: Frontier;
  cleanup(): Promise<void>;
}

async function harness(web: Web, overrides: Record<string, string> = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-disk-'));
  const dnsFile = join(dataDir, 'dns-map.json');
  writeFileSync(dnsFile, JSON.stringify(web.dnsMap));
  const config = loadConfig({
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: uniquePrefix('disk'),
    DATA_DIR: dataDir,
    FRONTIER_SHARDS: '4',
    CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
    CRAWLER_DNS_MAP: dnsFile,
    CRAWLER_DEFAULT_GAP_MS: '50',
    FRONTIER_BACKOFF_BASE_MS: '200',
    FRONTIER_BACKOFF_MAX_MS: '400',
    FRONTIER_MAX_ATTEMPTS: '5',
    QUALITY_SOFT404_PROBE: 'false',
    // The machine's Redis is a test server, not configured to persist.
    REDIS_VOLATILE_OK: 'true',
    LOG_LEVEL: 'warn',
    ...overrides,
  });
  const redis = await connectRedis(config.REDIS_URL);
  const frontier = await openFrontier(config, redis);
  return {
    config,
    dataDir,
    redis,
    frontier,
    async cleanup() {
      await deleteKeysWithPrefix(redis, config.REDIS_PREFIX);
      redis.disconnect();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function seed(h: Harness, web: Web, host: string, paths: string[]): Promise<void> {
  await h.frontier.enqueue(
    paths.map((p) => {
      const url = web.url(host, p);
      return { url, urlFp: urlFingerprint(url), host, depth: 0, source: 'seed' as const };
    }),
  );
}

async function telemetryRows(h: Harness): Promise<TelemetryRow[]> {
  const entries = await h.redis.xrange(telemetryStreamKey(h.config.REDIS_PREFIX), '-', '+');
  return entries.flatMap(([, fields]) => JSON.parse(fields[1]!) as TelemetryRow[]);
}

async function until<T>(
  what: string,
  get: () => Promise<T> | T,
  ms = 15_000,
): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await sleep(50);
  }
}

/** Attempts of each queued URL of a host, by URL (queue entries are `fp|attempts|…|url`). */
async function queuedAttempts(h: Harness, host: string): Promise<Map<string, number>> {
  const shard = h.frontier.shardOf(host);
  const out = new Map<string, number>();
  for (const tier of '0123456789r') {
    for (const raw of await h.redis.lrange(h.frontier.keys.tierQueue(shard, tier, host), 0, -1)) {
      const parts = raw.split('|');
      out.set(parts.slice(5).join('|'), Number(parts[1]));
    }
  }
  return out;
}

async function healthz(port: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe('agent on a full disk', () => {
  it('fails the lease (attempt counted), answers 503, leases nothing, and recovers on a new file', async () => {
    const disk: TestTmpfs = await mountTestTmpfs('2m');
    cleanups.push(() => disk.unmount());
    const web = await startWeb(['a.test', 'b.test', 'c.test']);
    cleanups.push(() => web.close());
    const h = await harness(web);
    cleanups.push(() => h.cleanup());
    const agent = await CrawlAgent.create({ ...h.config, agentId: 'disk-agent' }, h.redis, log, {
      warcDir: disk.dir,
    });
    let stopped = false;
    cleanups.push(() => (stopped ? Promise.resolve() : agent.stop()));
    const metrics = await serveMetrics(agent.metrics.registry, 0, '127.0.0.1', () =>
      agent.health(),
    );
    cleanups.push(() => new Promise((resolve) => metrics.server.close(resolve)));
    agent.start();

    // Healthy: host a's pages are archived and their rows point at their records.
    await seed(h, web, 'a.test', ['/1', '/2', '/3']);
    const pageRows = (rows: TelemetryRow[], host: string) =>
      rows.filter((r) => r.host === host && !r.url.endsWith('/robots.txt'));
    await until('host a archived', async () => {
      const rows = pageRows(await telemetryRows(h), 'a.test');
      return rows.length === 3 && agent.activeLeases === 0;
    });
    expect(await healthz(metrics.port)).toEqual({ status: 200, body: { ok: true } });
    const brokenKey = pageRows(await telemetryRows(h), 'a.test')[0]!.warc_key;
    expect(brokenKey).toMatch(/\/00000\.warc\.gz$/);

    // The disk fills up. Host b's fetches cannot be archived: its lease fails at its first URL.
    await disk.fill();
    await seed(h, web, 'b.test', ['/1', '/2']);
    const failedRows = await until('host b failed', async () => {
      const rows = pageRows(await telemetryRows(h), 'b.test');
      return rows.length > 0 && agent.activeLeases === 0 ? rows : null;
    });
    expect(failedRows.map((r) => [r.url, r.status, r.error_code, r.warc_key, r.record_id])).toEqual(
      [[web.url('b.test', '/1'), 200, 'warc_write_failed', '', '']],
    );
    // Its robots.txt row points at no record either.
    const robotsRow = (await telemetryRows(h)).find(
      (r) => r.url === web.url('b.test', '/robots.txt'),
    );
    expect(robotsRow).toMatchObject({ status: 404, error_code: 'warc_write_failed', warc_key: '' });
    // The lease went through the frontier's fail path: /1 back with its attempt counted.
    const attempts = await queuedAttempts(h, 'b.test');
    expect(attempts.get(web.url('b.test', '/1'))).toBe(1);
    expect(attempts.get(web.url('b.test', '/2'))).toBe(0);
    expect((await h.frontier.stats()).openLeases).toBe(0);
    const unhealthy = await healthz(metrics.port);
    expect(unhealthy.status).toBe(503);
    expect(unhealthy.body).toMatchObject({
      ok: false,
      reason: 'warc_write_failed',
      error: 'ENOSPC',
    });

    // While writes fail, the agent leases nothing: not b again (its backoff is over), nor c.
    await seed(h, web, 'c.test', ['/1']);
    const bRequests = web.requested('b.test').length;
    await sleep(2500);
    expect(web.requested('c.test')).toEqual([]);
    expect(web.requested('b.test').length).toBe(bRequests);
    expect(agent.activeLeases).toBe(0);
    expect((await healthz(metrics.port)).status).toBe(503);

    // Space is back: a new file opens on its own, the agent is healthy and leases again.
    await disk.free();
    await until('healthy again', async () => (await healthz(metrics.port)).status === 200, 10_000);
    const done = await until('b and c archived', async () => {
      const rows = (await telemetryRows(h)).filter(
        (r) => (r.host === 'b.test' || r.host === 'c.test') && r.warc_key !== '',
      );
      const pages = rows.filter((r) => !r.url.endsWith('/robots.txt'));
      return pages.length === 3 ? pages : null;
    });
    for (const row of done) {
      expect(row.error_code).toBe('');
      expect(row.warc_key).not.toBe(brokenKey);
    }
    expect((await h.frontier.stats()).deadLetters).toBe(0);

    // Every row that names a record names one that reads back, the broken file's included
    // (it was closed at its last whole record and shipped like any other).
    await agent.stop();
    stopped = true;
    const store = openObjectStore({ kind: 'local', dir: join(h.dataDir, 'warc') });
    const withRecord = (await telemetryRows(h)).filter((r) => r.warc_key !== '');
    expect(withRecord.some((r) => r.warc_key === brokenKey)).toBe(true);
    for (const row of withRecord) {
      const rec = await readWarcRecordFromStore(
        store,
        row.warc_key,
        row.warc_offset,
        row.warc_length,
      );
      expect(rec.recordId).toBe(row.record_id);
      expect(rec.targetUri).toBe(row.url);
      expect(rec.digestsOk).toBe(true);
    }
  }, 90_000);
});

function exchange(url: string): HttpExchange {
  return {
    url,
    fetchedAt: new Date(),
    method: 'GET',
    requestHeaders: [],
    httpVersion: '1.1',
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'text/plain']],
    body: Buffer.from('left behind'),
  };
}

/** A writer in another process that writes a record, then is killed (SIGKILL) with its file open. */
async function crashedWriter(dir: string, prefix: string): Promise<void> {
  const script = join(dir, '..', 'crash-writer.mts');
  const warcIndex = join(REPO, 'packages/adapters/src/warc/index.ts');
  writeFileSync(
    script,
    `import { WarcWriter } from ${JSON.stringify(warcIndex)};
const w = await WarcWriter.open({ dir: process.argv[2], prefix: process.argv[3], software: 'x/1' });
await w.writeExchange({ url: 'https://crashed.test/', fetchedAt: new Date(), method: 'GET',
  requestHeaders: [], httpVersion: '1.1', status: 200, statusText: 'OK',
  responseHeaders: [], body: Buffer.from('crashed') });
process.stdout.write('ready\\n');
setInterval(() => {}, 1000);
`,
  );
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, dir, prefix], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`crash writer exited early (${code})`)));
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
  });
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('agent start on a shared WARC folder', () => {
  it('ships what earlier writers of any agent id left, never a live writer’s open file', async () => {
    const web = await startWeb(['a.test']);
    cleanups.push(() => web.close());
    const h = await harness(web);
    cleanups.push(() => h.cleanup());
    // The agent writes to its own folder; its store (DATA_DIR/warc) is another, so shipping
    // copies files there and removes them here.
    const warcDir = join(h.dataDir, 'agent-warc');
    const day = '2026-11-30';

    // 1. An agent of another id crashed with its file open (a moment ago: its lock is fresh).
    const crashed = `crawl/${day}/other-agent/010101-1`;
    await crashedWriter(warcDir, crashed);
    // 2. An agent of another id stopped cleanly, but its uploads never finished.
    const stoppedPrefix = `crawl/${day}/gone-agent/020202-2`;
    const stoppedWriter = await WarcWriter.open({
      dir: warcDir,
      prefix: stoppedPrefix,
      software: 'x/1',
    });
    await stoppedWriter.writeExchange(exchange('https://stopped.test/'));
    await stoppedWriter.close();
    // 3. An agent still running on the same folder, its file open.
    const livePrefix = `crawl/${day}/live-agent/030303-3`;
    const live = await WarcWriter.open({ dir: warcDir, prefix: livePrefix, software: 'x/1' });
    cleanups.push(() => live.close());
    await live.writeExchange(exchange('https://live.test/'));

    const agent = await CrawlAgent.create({ ...h.config, agentId: 'new-agent' }, h.redis, log, {
      warcDir,
    });
    cleanups.push(() => agent.stop());
    const store = join(h.dataDir, 'warc');
    for (const prefix of [crashed, stoppedPrefix]) {
      const key = `${prefix}/00000.warc.gz`;
      await until(`${key} shipped`, () => exists(join(warcDir, `${key}.shipped`)), 10_000);
      expect(await exists(join(store, key))).toBe(true);
      await until(`${key} removed`, async () => !(await exists(join(warcDir, key))));
    }
    await sleep(300);
    const liveKey = `${livePrefix}/00000.warc.gz`;
    expect(await exists(join(store, liveKey))).toBe(false);
    expect(await exists(join(warcDir, liveKey))).toBe(true);
  }, 60_000);
});
