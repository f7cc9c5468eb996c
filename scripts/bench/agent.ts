import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openFrontier } from '@crawler/frontier';
import { loadConfig, type Config } from '@crawler/shared/config';
import { telemetryStreamKey } from '@crawler/shared/messages';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/shared/redis';
import { hostOf, normalizeUrl, urlFingerprint } from '@crawler/shared/url';
import {
  readRequestLog,
  scoreCrawl,
  type Manifest,
  type RequestLogEntry,
} from '@crawler/synthetic-web';
import { buildCeilingHosts, type CeilingPlan } from './ceiling-plan';
import { formatSummary, profileFiles, summarizeProfiles } from './cpuprofile-summary';
import { measureChild, targetPath, type Measured } from './measure-child';
import { startWebChild, type WebChild } from './web-child';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * One agent process (`apps/agent/src/main.ts`, full pipeline: robots, parse pool, hashes, WARC,
 * telemetry) against the synthetic web, then, in the same run, the ceiling: a bare undici loop
 * (`agent-ceiling.ts`) over the same URLs with the same politeness, against a fresh copy of the
 * same web. Both are child processes measured from /proc over the same number of seconds,
 * counted from the web's own request log; the web's CPU is not counted.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      hosts: { type: 'string', default: '2000' },
      seconds: { type: 'string', default: '60' },
      'gap-ms': { type: 'string' },
      seed: { type: 'string', default: '1' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const hosts = Number(values.hosts);
  const seconds = Number(values.seconds);
  const gapMs = Number(values['gap-ms'] ?? loadConfig({}).CRAWLER_DEFAULT_GAP_MS);
  const seed = values.seed ?? '1';
  const load1 = loadavg()[0] ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-'));
  const prefix = `bench-agent-${randomBytes(4).toString('hex')}`;
  const env = {
    ...process.env,
    REDIS_PREFIX: prefix,
    CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
    CRAWLER_DEFAULT_GAP_MS: String(gapMs),
    AGENT_MAX_HOSTS: String(Math.max(256, hosts)),
    AGENT_METRICS_PORT: '0',
    DATA_DIR: join(dir, 'agent-data'),
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(env);
  const webs: WebChild[] = [];
  let redis: RedisClient | null = null;
  try {
    // Phase 1: the agent.
    console.error(`synthetic web: ${hosts} hosts, seed ${seed}; load average ${load1.toFixed(2)}`);
    const web1 = await startWebChild({ root: ROOT, hosts, seed, dir: join(dir, 'web1') });
    webs.push(web1);
    redis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
    await enqueueSeeds(config, redis, readFileSync(web1.seeds, 'utf8').split('\n'));
    const profDir = join(dir, 'agent-prof');
    if (values.profile) mkdirSync(profDir);
    const agent = await measureChild({
      label: 'agent',
      cwd: ROOT,
      nodeArgs: [
        ...(values.profile ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []),
        '--import',
        'tsx',
        'apps/agent/src/main.ts',
      ],
      env: { ...env, CRAWLER_DNS_MAP: web1.dnsMap },
      logPath: web1.logPath,
      seconds,
    });
    console.error(
      `agent: start-up ${(agent.startupMs / 1000).toFixed(1)} s (cpu ${(agent.startupCpuMs / 1000).toFixed(1)} s), drain ${(agent.drainMs / 1000).toFixed(1)} s, exit ${agent.exitCode}; ` +
        (await telemetrySummary(redis, prefix)),
    );
    console.error(
      `agent window: cpu ${(agent.cpuMs / 1000).toFixed(1)} s (main thread ${(agent.threadsCpuMs.mainMs / 1000).toFixed(1)} s, ` +
        `busiest other thread ${(agent.threadsCpuMs.busiestOtherMs / 1000).toFixed(1)} s, rest ${(agent.threadsCpuMs.restMs / 1000).toFixed(1)} s), ` +
        `machine ${(agent.machineBusy * 100).toFixed(0)}% busy`,
    );
    await web1.stop();
    const log1 = await readRequestLog(web1.logPath);
    const manifest = JSON.parse(readFileSync(web1.manifest, 'utf8')) as Manifest;
    const score = scoreCrawl({
      log: log1,
      manifest,
      productToken: config.CRAWLER_UA_TOKEN,
      minGapMs: gapMs,
    });
    for (const v of score.violations.slice(0, 10))
      console.error(`violation ${v.kind} ${v.host}: ${v.detail}`);
    const a = windowCounts(log1, agent);

    // Phase 2: the ceiling, on a fresh web (cold like the agent's, an empty log).
    const web2 = await startWebChild({ root: ROOT, hosts, seed, dir: join(dir, 'web2') });
    webs.push(web2);
    const plan: CeilingPlan = {
      port: web2.port,
      userAgent: config.userAgent,
      connectTimeoutMs: config.FETCH_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: config.FETCH_FIRST_BYTE_TIMEOUT_MS,
      totalTimeoutMs: config.FETCH_TOTAL_TIMEOUT_MS,
      maxBodyBytes: config.FETCH_MAX_BODY_BYTES,
      backoffBaseMs: config.FRONTIER_BACKOFF_BASE_MS,
      backoffMaxMs: config.FRONTIER_BACKOFF_MAX_MS,
      robotsRetryBaseMs: config.ROBOTS_RETRY_BASE_MS,
      hosts: buildCeilingHosts(log1, manifest, gapMs),
    };
    const planPath = join(dir, 'ceiling-plan.json');
    writeFileSync(planPath, JSON.stringify(plan));
    const ceiling = await measureChild({
      label: 'ceiling',
      cwd: ROOT,
      nodeArgs: ['--import', 'tsx', 'scripts/bench/agent-ceiling.ts', planPath],
      env: process.env,
      logPath: web2.logPath,
      seconds,
      collectStdout: true,
    });
    await web2.stop();
    const log2 = await readRequestLog(web2.logPath);
    const c = windowCounts(log2, ceiling);
    const ceilingScore = scoreCrawl({
      log: log2,
      manifest,
      productToken: config.CRAWLER_UA_TOKEN,
      minGapMs: gapMs,
    });
    console.error(
      `ceiling: ${ceiling.stdout.at(-1) ?? '{}'}; politeness violations ${ceilingScore.politeness_violations}; ` +
        `window cpu ${(ceiling.cpuMs / 1000).toFixed(1)} s, machine ${(ceiling.machineBusy * 100).toFixed(0)}% busy`,
    );
    for (const v of ceilingScore.violations.slice(0, 5))
      console.error(`ceiling violation ${v.kind} ${v.host}: ${v.detail}`);

    if (values.profile) {
      // The window only: leave out the agent's start-up (spawn → first response).
      const files = profileFiles([profDir]);
      console.error(`agent CPU profile (${profDir}, window only):`);
      console.error(formatSummary(summarizeProfiles(files, { skipMs: agent.startupMs }), 30));
    }

    const pagesPerS = a.pages / a.seconds;
    const ceilingPagesPerS = c.pages / c.seconds;
    return {
      bench: 'agent',
      hosts,
      seconds: Number(a.seconds.toFixed(1)),
      gap_ms: gapMs,
      pages: a.pages,
      robots_fetches: a.robots,
      pages_per_s: round1(pagesPerS),
      cpu_ms_per_page: a.pages > 0 ? round2(agent.cpuMs / a.pages) : null,
      peak_rss_mb: Math.round(agent.peakRssMb),
      ceiling_pages: c.pages,
      ceiling_pages_per_s: round1(ceilingPagesPerS),
      ceiling_ratio: c.pages > 0 ? round2(pagesPerS / ceilingPagesPerS) : null,
      ceiling_cpu_ms_per_page: c.pages > 0 ? round2(ceiling.cpuMs / c.pages) : null,
      politeness_violations: score.politeness_violations,
      robots_violations: score.robots_violations,
      duplicate_fetches: score.duplicate_fetches,
      ceiling_politeness_violations: ceilingScore.politeness_violations,
      web_expected_urls: manifest.expected.length,
      peak_pages_per_s: round1(a.peakPagesPerS),
      ceiling_peak_pages_per_s: round1(c.peakPagesPerS),
      first_page_s: a.firstPageS,
      ceiling_first_page_s: c.firstPageS,
      machine_busy_pct: Math.round(agent.machineBusy * 100),
      load_avg_1m: round2(load1),
      ...(values.profile ? { profiled: true } : {}),
    };
  } finally {
    await Promise.all(webs.map((w) => w.stop()));
    if (redis) {
      await deleteKeysWithPrefix(redis, prefix);
      await redis.quit();
    }
    if (values.keep) console.error(`kept ${dir}`);
    else if (values.profile) rmSync(join(dir, 'agent-data'), { recursive: true, force: true });
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** Seeds straight into the frontier, as the coordinator would add them. */
async function enqueueSeeds(config: Config, redis: RedisClient, seeds: string[]): Promise<void> {
  const frontier = await openFrontier(config, redis);
  const entries = [];
  for (const raw of seeds) {
    const n = normalizeUrl(raw.trim());
    if (n.ok)
      entries.push({
        url: n.url,
        urlFp: urlFingerprint(n.url),
        host: hostOf(n.url),
        depth: 0,
        source: 'seed' as const,
      });
  }
  const { accepted } = await frontier.enqueue(entries);
  console.error(`enqueued ${accepted} seeds under ${config.REDIS_PREFIX}`);
}

/**
 * The telemetry stream (each entry a JSON array of rows), as a cross-check of the web's log: how
 * many rows, and the fetch times the agent measured (its pacer waits 10× that after a fetch).
 */
async function telemetrySummary(redis: RedisClient, prefix: string): Promise<string> {
  const fetchMs: number[] = [];
  let start = '-';
  for (;;) {
    const entries = await redis.xrange(telemetryStreamKey(prefix), start, '+', 'COUNT', 200);
    for (const [, fields] of entries) {
      const rows = JSON.parse(fields[fields.indexOf('rows') + 1] ?? '[]') as Array<{
        fetch_ms: number;
      }>;
      for (const row of rows) fetchMs.push(row.fetch_ms);
    }
    if (entries.length < 200) break;
    start = `(${entries.at(-1)![0]}`;
  }
  fetchMs.sort((x, y) => x - y);
  const q = (p: number): number =>
    fetchMs[Math.min(fetchMs.length - 1, Math.floor(fetchMs.length * p))] ?? 0;
  return `${fetchMs.length} telemetry rows, fetch_ms p50 ${q(0.5)} p90 ${q(0.9)} p99 ${q(0.99)} max ${q(1)}`;
}

/**
 * Responses that ended inside the measured window, from the web's log: `pages` are all but
 * `/robots.txt` (any status, as the scorer counts them), `robots` the robots.txt fetches;
 * `peakPagesPerS` is the best 5-second stretch of the window.
 */
function windowCounts(
  log: RequestLogEntry[],
  m: Measured,
): {
  pages: number;
  robots: number;
  seconds: number;
  peakPagesPerS: number;
  firstPageS: number | null;
} {
  let pages = 0;
  let robots = 0;
  let firstPageMs = Infinity;
  const bins = new Map<number, number>();
  for (const e of log) {
    if (e.endMs < m.windowStartMs || e.endMs > m.windowEndMs) continue;
    if (targetPath(e.target) === '/robots.txt') robots++;
    else {
      pages++;
      firstPageMs = Math.min(firstPageMs, e.endMs);
      const bin = Math.floor((e.endMs - m.windowStartMs) / 5000);
      bins.set(bin, (bins.get(bin) ?? 0) + 1);
    }
  }
  return {
    pages,
    robots,
    seconds: (m.windowEndMs - m.windowStartMs) / 1000,
    peakPagesPerS: Math.max(0, ...bins.values()) / 5,
    firstPageS: pages > 0 ? round1((firstPageMs - m.windowStartMs) / 1000) : null,
  };
}

function round1(x: number): number {
  return Number(x.toFixed(1));
}

function round2(x: number): number {
  return Number(x.toFixed(2));
}
