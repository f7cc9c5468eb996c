import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  startHostileFleet,
  startSyntheticWeb,
  type HostileFleet,
  type SyntheticWeb,
} from '@crawler/synthetic-web';
import { startCrawlStack, type CrawlStack } from './crawl-stack';

// The synthetic web's hostile hosts (a 20 MB page, a gzip bomb, a trickling server, huge
// headers, a slow server, malformed HTML, a redirect loop) and the hostile fleet (50 gzip bombs
// read at once, then 2,000 origins with a 500 KiB robots.txt of 1,000 rules): each ends with its
// own outcome in telemetry, nothing crashes, and the agent's memory stays within 512 MB — its
// body budget and robots cache at their defaults. The agent runs as its own process (the
// compiled one, as in production), so the RSS measured (the kernel's high-water mark) is its
// own: the webs, the coordinator and the embedded ClickHouse live in this process.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const MiB = 1024 * 1024;
const AGENT_RSS_LIMIT = 512 * MiB;

let web: SyntheticWeb;
let fleet: HostileFleet;
let stack: CrawlStack;
let agent: ChildProcess | null = null;
let agentStderr = '';
/** The agent process's RSS: sampled, and its kernel high-water mark (VmHWM) before it stops. */
let peakRss = 0;
let hwm = 0;
/** The sampled RSS peak of each storm (the hostile web, the bombs, the robots.txt), bytes. */
const stormPeaks = new Map<string, number>();
let storm = 'web';
let metricsText = '';
let crawlMs = 0;

type Row = {
  host: string;
  url: string;
  status: number;
  error_code: string;
  fetch_ms: number;
  bytes: string;
};
let rows: Row[] = [];
const hostOfKind = (kind: string) => web.hosts.find((h) => h.kind === kind)!.host;
const rowsOf = (kind: string) => rows.filter((r) => r.host === hostOfKind(kind));

/** One of the /proc/<pid>/status sizes (VmRSS, VmHWM), bytes; 0 once the process is gone. */
function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A metric's value from Prometheus text, or NaN. */
function metric(name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metricsText);
  return m ? Number(m[1]) : Number.NaN;
}

/** Adds seeds through the API. */
async function seed(urls: string[]): Promise<void> {
  const res = await fetch(`${stack.coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ urls }),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  // The compiled agent, built here when stale (npm test builds first: then a no-op).
  const builder = new URL('scripts/build.mjs', `file://${ROOT}/`).href;
  const { ensureBuilt } = (await import(builder)) as {
    ensureBuilt: (names: string[], opts?: { log?: (line: string) => void }) => Promise<string[]>;
  };
  await ensureBuilt(['agent'], { log: () => undefined });

  web = await startSyntheticWeb({ seed: 11, hosts: 50, maxPagesPerHost: 10, hostile: true });
  fleet = await startHostileFleet({ robotsHosts: 2000, bombHosts: 50 });
  const overrides = {
    CRAWLER_DEFAULT_GAP_MS: '50',
    FETCH_TOTAL_TIMEOUT_MS: '3000',
    FETCH_FIRST_BYTE_TIMEOUT_MS: '2500',
    // The trickle (2 bytes/s) is cut by the minimum speed well before the overall deadline.
    FETCH_MIN_SPEED_WINDOW_MS: '1500',
    FRONTIER_MAX_ATTEMPTS: '2',
    FRONTIER_BACKOFF_BASE_MS: '200',
    FRONTIER_BACKOFF_MAX_MS: '500',
    ROBOTS_RETRY_BASE_MS: '300',
    ROBOTS_MAX_FAILURES: '2',
    CRAWLER_MAX_DEPTH: '2',
  };
  stack = await startCrawlStack({ dnsMap: { ...web.dnsMap, ...fleet.dnsMap } }, overrides, []);
  const hostile = new Set(web.hosts.filter((h) => h.kind !== 'normal').map((h) => h.host));
  await seed(web.seeds.filter((s) => hostile.has(new URL(s).hostname)));

  const metricsPort = await freePort();
  const started = Date.now();
  agent = spawn(process.execPath, [join(ROOT, 'apps/agent/dist/main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...overrides,
      REDIS_URL: stack.env.config.REDIS_URL,
      REDIS_PREFIX: stack.env.config.REDIS_PREFIX,
      FRONTIER_SHARDS: String(stack.env.config.FRONTIER_SHARDS),
      DATA_DIR: stack.env.dataDir,
      CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
      // startCrawlStack wrote the webs' host → IPv4 map there.
      CRAWLER_DNS_MAP: join(stack.env.dataDir, 'dns-map.json'),
      AGENT_ID: 'agent-hostile',
      AGENT_PARSE_THREADS: '1',
      AGENT_METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
      // As agents are run (docs/CONFIGURATION.md, "The agent process"): glibc returns freed
      // bodies to the system instead of keeping them in its heap.
      MALLOC_MMAP_THRESHOLD_: '131072',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  agent.stderr!.on(
    'data',
    (c: Buffer) => (agentStderr = (agentStderr + c.toString()).slice(-4000)),
  );
  const pid = agent.pid!;
  const sampler = setInterval(() => {
    const rss = procStatus(pid, 'VmRSS');
    peakRss = Math.max(peakRss, rss);
    stormPeaks.set(storm, Math.max(stormPeaks.get(storm) ?? 0, rss));
  }, 100);
  /** Waits until the frontier is idle (or the agent exits, or `ms` pass). */
  const child = agent;
  const idle = async (ms: number): Promise<void> => {
    const until = Date.now() + ms;
    while (Date.now() < until && child.exitCode === null) {
      await sleep(500);
      if (await stack.coordinator.services.frontier.isIdle()) return;
    }
  };
  try {
    // The hostile web first, then the bombs, then the 2,000 robots.txt: each is its own storm, so
    // the trickle's timing is the speed floor's, not a wait for body budget behind 50 bombs.
    await idle(60_000);
    storm = 'bombs';
    await seed(fleet.bombSeeds);
    const bombsBy = Date.now() + 60_000;
    while (Date.now() < bombsBy && agent.exitCode === null) {
      await sleep(250);
      const s = fleet.stats();
      if (s.bombs >= 50 && s.bombsOpen === 0) break;
    }
    storm = 'robots';
    await seed(fleet.robotsSeeds);
    await idle(150_000);
    crawlMs = Date.now() - started;
    hwm = procStatus(pid, 'VmHWM');
    metricsText = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      .then((r) => r.text())
      .catch(() => '');
    const exited = new Promise<void>((resolve) => agent!.once('exit', () => resolve()));
    if (agent.exitCode === null) agent.kill('SIGTERM');
    await exited;
  } finally {
    clearInterval(sampler);
  }
  await stack.coordinator.ingest.settle();
  rows = await stack.coordinator.services.analytics.queryJson<Row>(
    'SELECT host, url, status, error_code, fetch_ms, toString(bytes) AS bytes FROM fetches FINAL',
  );
}, 300_000);

afterAll(async () => {
  if (agent && agent.exitCode === null) agent.kill('SIGKILL');
  await stack?.stop();
  await web?.close();
  await fleet?.close();
});

describe('hostile hosts', () => {
  it('crawls them all to the end without crashing', async () => {
    expect(agent?.exitCode, agentStderr).toBe(0);
    expect(await stack.coordinator.services.frontier.isIdle()).toBe(true);
    for (const kind of [
      'huge-page',
      'gzip-bomb',
      'slow',
      'trickle',
      'huge-headers',
      'malformed',
      'redirect-loop',
    ]) {
      expect(rowsOf(kind).length, kind).toBeGreaterThan(0);
    }
  });

  it('stops the chunked 20 MB page and the gzip bomb at the 10 MB decoded cap, and the 20 MB page with a Content-Length at its headers (too_large)', () => {
    const capped = (kind: string) => rowsOf(kind).filter((r) => r.error_code === 'too_large');
    const chunked = capped('huge-page').filter((r) => r.url.endsWith('/huge-chunked.html'));
    const announced = capped('huge-page').filter((r) => !r.url.endsWith('/huge-chunked.html'));
    for (const [what, list] of [
      ['chunked', chunked],
      ['with a Content-Length', announced],
      ['gzip bomb', capped('gzip-bomb')],
    ] as const)
      expect(list.length, what).toBeGreaterThan(0);
    expect([...chunked, ...capped('gzip-bomb')].map((r) => Number(r.bytes))).toEqual(
      [...chunked, ...capped('gzip-bomb')].map(() => 10 * 1024 * 1024),
    );
    // Its Content-Length says it is over the cap: not a byte of its body is read.
    expect(announced.map((r) => Number(r.bytes))).toEqual(announced.map(() => 0));
  });

  it('ends a trickling response at the minimum transfer speed (too_slow), and retries it a bounded number of times', () => {
    const t = rowsOf('trickle').filter((r) => r.error_code === 'too_slow');
    expect(t.length).toBeGreaterThan(0);
    expect(t.every((r) => r.fetch_ms >= 1400 && r.fetch_ms < 2900)).toBe(true);
    expect(t.length).toBeLessThanOrEqual(2 * new Set(t.map((r) => r.url)).size);
  });

  it('refuses huge headers (headers_too_large) and takes slow first bytes within the limit', () => {
    expect(rowsOf('huge-headers').some((r) => r.error_code === 'headers_too_large')).toBe(true);
    expect(
      rowsOf('slow').some((r) => r.status === 200 && r.error_code === '' && r.fetch_ms >= 1900),
    ).toBe(true);
  });

  it('parses malformed HTML and ends a redirect loop', () => {
    expect(rowsOf('malformed').some((r) => r.status === 200 && r.error_code === '')).toBe(true);
    const loop = rowsOf('redirect-loop');
    expect(loop.some((r) => r.status >= 300 && r.status < 400)).toBe(true);
    // Each URL of the loop is requested once: the seen set ends the cycle.
    expect(new Set(loop.map((r) => r.url)).size).toBe(loop.length);
  });

  it('reads 50 gzip bombs at once, each to the cap, and 2,000 robots.txt of 500 KiB', () => {
    const s = fleet.stats();
    expect(s.robots).toBeGreaterThanOrEqual(2000);
    expect(s.pages).toBe(2000); // each home page once (and a soft-404 probe each: `other`)
    // The agent had the bombs open together (most waiting for body budget, sockets paused).
    expect(s.bombsPeak).toBeGreaterThanOrEqual(25);
    const bombs = rows.filter(
      (r) => r.host.endsWith('.fleet.test') && r.url.endsWith('/bomb.html'),
    );
    const capped = bombs.filter(
      (r) => r.error_code === 'too_large' && Number(r.bytes) === 10 * MiB,
    );
    expect(new Set(capped.map((r) => r.url)).size).toBe(50);
    // A bomb read on a busy agent may pass the (test's short) deadline once, and is retried.
    expect(bombs.length).toBeLessThanOrEqual(2 * 50);
  });

  it('keeps the agent process under 512 MB of RSS, its caches within their budgets', () => {
    const robotsBytes = metric('crawler_robots_cache_bytes');
    const bodyPeak = metric('crawler_body_budget_peak_bytes');
    console.log(
      `agent peak RSS ${Math.round(Math.max(hwm, peakRss) / MiB)} MB (VmHWM ${Math.round(hwm / MiB)} MB, ` +
        `sampled ${Math.round(peakRss / MiB)} MB); robots cache ${Math.round(robotsBytes / MiB)} MiB ` +
        `in ${metric('crawler_robots_cache_origins')} origins; body budget peak ${Math.round(bodyPeak / MiB)} MiB, ` +
        `${metric('crawler_body_budget_waits_total')} waits; crawl ${(crawlMs / 1000).toFixed(1)} s; ` +
        `sampled peak by storm: ${[...stormPeaks].map(([k, v]) => `${k} ${Math.round(v / MiB)} MB`).join(', ')}`,
    );
    expect(hwm).toBeGreaterThan(0);
    expect(Math.max(hwm, peakRss)).toBeLessThan(AGENT_RSS_LIMIT);
    expect(robotsBytes).toBeLessThanOrEqual(32 * MiB);
    expect(robotsBytes).toBeGreaterThan(16 * MiB); // the cache was full: the budget bound it
    expect(bodyPeak).toBeLessThanOrEqual(64 * MiB + 10 * MiB);
    expect(metric('crawler_body_budget_waits_total')).toBeGreaterThan(0);
  });
});
