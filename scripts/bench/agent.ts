import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openFrontier } from '@crawler/frontier';
import { loadConfig, type Config } from '@crawler/domain/config';
import { telemetryStreamKey } from '@crawler/domain/messages';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { frontierEntry } from '@crawler/domain/url';
import { ceilingComparison, measureCeilings } from './ceiling-phase';
import { formatSummary, profileFiles, summarizeProfiles } from './cpuprofile-summary';
import { measureChild } from './measure-child';
import { scoreWeb, setUpWeb, startBenchWeb, webBenchArgs, webBenchOptions } from './web-bench';
import type { WebChild } from './web-child';
import { round1, round2, windowCounts } from './window-counts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * One agent process (`apps/agent/dist/main.js`, compiled; full pipeline: robots, parse pool, hashes, WARC,
 * telemetry) against the synthetic web, then, in the same run, the ceiling: a bare undici loop
 * (`agent-ceiling.ts`) over the same URLs with the same politeness, against a fresh copy of the
 * same web. Both are child processes measured from /proc over the same number of seconds,
 * counted from the web's own request log; the web's CPU is not counted.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      // Issue 21's web: 5,000 hosts, a 0.5 s gap (`--web simple --hosts 2000 --gap-ms 1000`
      // for the earlier figures).
      ...webBenchOptions({ hosts: 5000, seconds: 60, gapMs: 500 }),
      processes: { type: 'string', default: '1' },
      'log-level': { type: 'string', default: 'warn' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      // Hosts the agent may hold at once (AGENT_MAX_HOSTS; default: every host of the web).
      'max-hosts': { type: 'string' },
      // The agent alone (no ceiling phases): to compare agent settings quickly.
      'no-ceiling': { type: 'boolean', default: false },
    },
  });
  const bench = webBenchArgs(values);
  const { hosts, seconds, gapMs } = bench;
  const processes = Number(values.processes);
  if (!Number.isInteger(processes) || processes < 1)
    throw new Error(`--processes must be a positive integer, got ${values.processes}`);
  const load1 = loadavg()[0] ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-'));
  const prefix = `bench-agent-${randomBytes(4).toString('hex')}`;
  const metricsPort = await freePortRun(processes);
  const setup = setUpWeb(bench.web, dir);
  const env = {
    ...setup.env,
    ...process.env,
    REDIS_PREFIX: prefix,
    CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
    CRAWLER_DEFAULT_GAP_MS: String(gapMs),
    AGENT_MAX_HOSTS: values['max-hosts'] ?? String(Math.max(256, hosts)),
    AGENT_METRICS_PORT: String(metricsPort),
    DATA_DIR: join(dir, 'agent-data'),
    LOG_LEVEL: values['log-level'] ?? 'warn',
  };
  const config = loadConfig(env);
  const webs: WebChild[] = [];
  let redis: RedisClient | null = null;
  try {
    // Phase 1: the agent.
    const web1 = await startBenchWeb({ root: ROOT, bench, setup, dir: join(dir, 'web1'), load1 });
    webs.push(web1);
    redis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
    await enqueueSeeds(config, redis, readFileSync(web1.seeds, 'utf8').split('\n'));
    // Production runs compiled JavaScript: so does the bench (built here when stale).
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--quiet', 'agent'], {
      cwd: ROOT,
      stdio: ['ignore', 2, 'inherit'],
    });
    const profDir = join(dir, 'agent-prof');
    const workersProfDir = join(dir, 'agent-prof-workers');
    if (values.profile) {
      mkdirSync(profDir);
      mkdirSync(workersProfDir);
    }
    const agent = await measureChild({
      label: 'agent',
      cwd: ROOT,
      // A profile names our modules only when run from source (the bundle is one file).
      nodeArgs: values.profile
        ? ['--cpu-prof', '--cpu-prof-dir', profDir, '--import', 'tsx', 'apps/agent/src/main.ts']
        : ['apps/agent/dist/main.js'],
      env: {
        ...env,
        CRAWLER_DNS_MAP: web1.dnsMap,
        ...(values.profile ? { AGENT_PARSE_CPU_PROFILE_DIR: workersProfDir } : {}),
      },
      processes,
      // As npm start runs agents (glibc returns freed bodies to the OS).
      envOf: (i) => ({
        AGENT_ID: `bench-agent-${i + 1}`,
        AGENT_METRICS_PORT: String(metricsPort + i),
        MALLOC_MMAP_THRESHOLD_: '131072',
      }),
      logPath: web1.logPath,
      seconds,
      probe: () => eventLoopActiveSeconds(metricsPort, processes),
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
    const { log: log1, manifest, score } = await scoreWeb(web1, config.CRAWLER_UA_TOKEN, gapMs);
    const a = windowCounts(log1, agent.windowStartMs, agent.windowEndMs);

    // Phase 2: the ceiling, on a fresh web (cold like the agent's, an empty log).
    const ceilings = values['no-ceiling']
      ? null
      : await measureCeilings({
          ...bench,
          root: ROOT,
          dir: join(dir, 'ceilings'),
          config,
          crawlLog: log1,
          manifest,
          setup,
        });

    if (values.profile) {
      // The window only: leave out the agent's start-up (spawn → first response).
      for (const [what, folder] of [
        ['main thread (and tsx loader thread)', profDir],
        ['parse threads', workersProfDir],
      ] as const) {
        const files = profileFiles([folder]);
        console.error(`agent CPU profile, ${what} (${folder}, window only):`);
        if (files.length > 0)
          console.error(formatSummary(summarizeProfiles(files, { skipMs: agent.startupMs }), 30));
      }
    }

    const pagesPerS = a.pages / a.seconds;
    const cpuMsPerPage = a.pages > 0 ? round2(agent.cpuMs / a.pages) : null;
    const windowS = (agent.windowEndMs - agent.windowStartMs) / 1000;
    return {
      bench: 'agent',
      web: bench.web,
      hosts,
      seconds: Number(a.seconds.toFixed(1)),
      gap_ms: gapMs,
      processes,
      pages: a.pages,
      robots_fetches: a.robots,
      pages_per_s: round1(pagesPerS),
      cpu_ms_per_page: cpuMsPerPage,
      main_cpu_ms_per_page: a.pages > 0 ? round2(agent.threadsCpuMs.mainMs / a.pages) : null,
      other_cpu_ms_per_page:
        a.pages > 0 ? round2((agent.cpuMs - agent.threadsCpuMs.mainMs) / a.pages) : null,
      // Busy seconds of the agents' event loops over the window, per process.
      event_loop_utilization:
        agent.probeDelta !== null ? round2(agent.probeDelta / (windowS * processes)) : null,
      bytes_per_page: a.pages > 0 ? Math.round(a.bytes / a.pages) : null,
      peak_rss_mb: Math.round(agent.peakRssMb),
      peak_rss_mb_per_process: Math.round(agent.peakRssMb / processes),
      politeness_violations: score.politeness_violations,
      robots_violations: score.robots_violations,
      duplicate_fetches: score.duplicate_fetches,
      web_expected_urls: manifest.expected.length,
      peak_pages_per_s: round1(a.peakPagesPerS),
      first_page_s: a.firstPageS,
      ramp_s: a.rampS,
      best_10s_pages_per_s: a.best10sPagesPerS,
      startup_s: round1(agent.startupMs / 1000),
      overrun_s: round1(agent.drainMs / 1000),
      machine_busy_pct: Math.round(agent.machineBusy * 100),
      ...(ceilings ? ceilingComparison({ pagesPerS, cpuMsPerPage }, ceilings) : {}),
      load_avg_1m: round2(load1),
      ...(values.profile ? { profiled: true } : {}),
    };
  } finally {
    await Promise.all(webs.map((w) => w.stop()));
    setup.dispose();
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
    const n = frontierEntry(raw.trim());
    if (n.ok) entries.push({ ...n.entry, depth: 0, source: 'seed' as const });
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

/** The first of `n` consecutive free TCP ports on 127.0.0.1 (the agents' metrics ports). */
async function freePortRun(n: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const ok = await Promise.all(Array.from({ length: n }, (_, i) => portFree(base + i)));
    if (ok.every(Boolean)) return base;
  }
  throw new Error(`no run of ${n} free ports found for the agents' metrics`);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The agents' `crawler_event_loop_active_seconds`, summed, from their metrics endpoints. */
async function eventLoopActiveSeconds(basePort: number, n: number): Promise<number> {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const text = await (await fetch(`http://127.0.0.1:${basePort + i}/metrics`)).text();
    const m = /^crawler_event_loop_active_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text);
    if (!m) throw new Error(`agent ${i + 1}: no crawler_event_loop_active_seconds in /metrics`);
    sum += Number(m[1]);
  }
  return sum;
}
