import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openFrontier } from '@crawler/frontier';
import { loadConfig, type Config } from '@crawler/domain/config';
import { telemetryStreamKey } from '@crawler/domain/messages';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { frontierEntry } from '@crawler/domain/url';
import { measureCeiling } from './ceiling-phase';
import { formatSummary, profileFiles, summarizeProfiles } from './cpuprofile-summary';
import { measureChild } from './measure-child';
import { scoreWeb, webBenchArgs, webBenchOptions } from './web-bench';
import { startWebChild, type WebChild } from './web-child';
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
      ...webBenchOptions({
        hosts: 2000,
        seconds: 60,
        gapMs: loadConfig({}).CRAWLER_DEFAULT_GAP_MS,
      }),
      processes: { type: 'string', default: '1' },
      'log-level': { type: 'string', default: 'warn' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const bench = webBenchArgs(values);
  const { hosts, seconds, gapMs, seed } = bench;
  const processes = Number(values.processes);
  if (!Number.isInteger(processes) || processes < 1)
    throw new Error(`--processes must be a positive integer, got ${values.processes}`);
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
    LOG_LEVEL: values['log-level'] ?? 'warn',
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
    // Production runs compiled JavaScript: so does the bench (built here when stale).
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--quiet', 'agent'], {
      cwd: ROOT,
      stdio: ['ignore', 2, 'inherit'],
    });
    const profDir = join(dir, 'agent-prof');
    if (values.profile) mkdirSync(profDir);
    const agent = await measureChild({
      label: 'agent',
      cwd: ROOT,
      // A profile names our modules only when run from source (the bundle is one file).
      nodeArgs: values.profile
        ? ['--cpu-prof', '--cpu-prof-dir', profDir, '--import', 'tsx', 'apps/agent/src/main.ts']
        : ['apps/agent/dist/main.js'],
      env: { ...env, CRAWLER_DNS_MAP: web1.dnsMap },
      processes,
      // As npm start runs agents (glibc returns freed bodies to the OS).
      envOf: (i) => ({ AGENT_ID: `bench-agent-${i + 1}`, MALLOC_MMAP_THRESHOLD_: '131072' }),
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
    const { log: log1, manifest, score } = await scoreWeb(web1, config.CRAWLER_UA_TOKEN, gapMs);
    const a = windowCounts(log1, agent.windowStartMs, agent.windowEndMs);

    // Phase 2: the ceiling, on a fresh web (cold like the agent's, an empty log).
    const web2 = { ...bench, root: ROOT, dir: join(dir, 'web2') };
    const ceiling = await measureCeiling({ ...web2, config, crawlLog: log1, manifest });
    const c = ceiling.counts;

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
      processes,
      pages: a.pages,
      robots_fetches: a.robots,
      pages_per_s: round1(pagesPerS),
      cpu_ms_per_page: a.pages > 0 ? round2(agent.cpuMs / a.pages) : null,
      peak_rss_mb: Math.round(agent.peakRssMb),
      ceiling_pages: c.pages,
      ceiling_pages_per_s: round1(ceilingPagesPerS),
      ceiling_ratio: c.pages > 0 ? round2(pagesPerS / ceilingPagesPerS) : null,
      ceiling_cpu_ms_per_page: c.pages > 0 ? round2(ceiling.measured.cpuMs / c.pages) : null,
      politeness_violations: score.politeness_violations,
      robots_violations: score.robots_violations,
      duplicate_fetches: score.duplicate_fetches,
      ceiling_politeness_violations: ceiling.politenessViolations,
      web_expected_urls: manifest.expected.length,
      peak_pages_per_s: round1(a.peakPagesPerS),
      ceiling_peak_pages_per_s: round1(c.peakPagesPerS),
      first_page_s: a.firstPageS,
      ceiling_first_page_s: c.firstPageS,
      ramp_s: a.rampS,
      ceiling_ramp_s: c.rampS,
      best_10s_pages_per_s: a.best10sPagesPerS,
      startup_s: round1(agent.startupMs / 1000),
      overrun_s: round1(agent.drainMs / 1000),
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
