import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFrontier } from '@crawler/frontier';
import { loadConfig } from '@crawler/domain/config';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { deleteKeysWithPrefix, uniquePrefix } from '@crawler/testing';
import { normalizeUrl, urlFingerprint } from '@crawler/domain/url';

// What `npm run build` produces runs as plain Node, without tsx: the compiled agent leases and
// fetches from a real Redis frontier, and the compiled CLI answers. The agent's start-up time
// (spawn → first request on the wire) is printed; the budget is 3 s on an idle machine.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(ROOT, 'apps/agent/dist/main.js');
const CLI_BIN = join(ROOT, 'apps/coordinator/bin/crawler.mjs');
const run = promisify(execFile);

let redis: RedisClient;
let web: Server;
let webUrl: string;
let dataDir: string;
const prefix = uniquePrefix('compiled');
const requests: Array<{ path: string; at: number }> = [];

beforeAll(async () => {
  // Built here when stale (npm test builds first, so this is a no-op there).
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', 'agent', 'coordinator'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  dataDir = await mkdtemp(join(tmpdir(), 'compiled-agent-'));
  web = createServer((req, res) => {
    requests.push({ path: req.url ?? '', at: Date.now() });
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<title>compiled</title><p>served to the compiled agent</p>');
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}/`;
  redis = await connectRedis(loadConfig({ REDIS_PREFIX: prefix }).REDIS_URL);
}, 120_000);

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await redis?.quit();
  await new Promise((resolve) => web?.close(resolve));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('compiled processes', () => {
  it('the compiled agent heartbeats, leases and fetches soon after it starts', async () => {
    expect(existsSync(join(ROOT, 'apps/agent/dist/parse-worker.js'))).toBe(true);
    const env = {
      ...process.env,
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      AGENT_ID: 'compiled-agent',
      AGENT_METRICS_PORT: '0',
      AGENT_PARSE_THREADS: '1',
      CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
      LOG_LEVEL: 'warn',
      REDIS_VOLATILE_OK: 'true',
    };
    const frontier = await openFrontier(loadConfig(env), redis);
    const n = normalizeUrl(webUrl);
    if (!n.ok) throw new Error(`cannot normalize ${webUrl}: ${n.detail}`);
    await frontier.enqueue([{ url: n.url, urlFp: urlFingerprint(n.url), host: n.host, depth: 0 }]);

    const spawnedAt = Date.now();
    const agent = spawn(process.execPath, [AGENT], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    agent.stdout.on('data', (d: Buffer) => (output += d.toString()));
    agent.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      let heartbeatAt = 0;
      for (let i = 0; i < 1500 && (heartbeatAt === 0 || requests.length < 2); i++) {
        if (agent.exitCode !== null)
          throw new Error(`agent exited (${agent.exitCode}):\n${output}`);
        if (heartbeatAt === 0 && (await redis.zscore(`${prefix}:agents`, 'compiled-agent'))) {
          heartbeatAt = Date.now();
        }
        await sleep(20);
      }
      expect(heartbeatAt, output).toBeGreaterThan(0);
      expect(requests.map((r) => r.path)).toEqual(['/robots.txt', '/']);
      const firstRequestMs = (requests[0]?.at ?? 0) - spawnedAt;
      console.log(
        `compiled agent: heartbeat after ${heartbeatAt - spawnedAt} ms, ` +
          `first request after ${firstRequestMs} ms`,
      );
      // 3 s is the goal on an idle machine; leave room for a loaded test machine.
      expect(firstRequestMs).toBeLessThan(10_000);
    } finally {
      agent.kill('SIGTERM');
      expect(await exited(agent), output).toBe(0);
    }
    // A drained agent takes itself off the list of live agents.
    expect(await redis.zscore(`${prefix}:agents`, 'compiled-agent')).toBeNull();
  }, 60_000);

  it('the crawler bin runs the compiled CLI', async () => {
    const { stdout } = await run(process.execPath, [CLI_BIN, '--help'], { cwd: ROOT });
    expect(stdout).toContain('crawler crawl --seeds FILE');
    const direct = await run(process.execPath, [
      join(ROOT, 'apps/coordinator/dist/cli.js'),
      'help',
    ]);
    expect(direct.stdout).toBe(stdout);
  }, 60_000);
});
