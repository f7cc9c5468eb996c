import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { oneShotCrawl } from '../../apps/coordinator/src/cli/one-shot-crawl';
import { defaultAgentProcesses } from '../../apps/coordinator/src/cli/one-shot-agents';
import { ceilingComparison, measureCeilings } from './ceiling-phase';
import { logClockMs } from './measure-child';
import {
  machineCpuTicks,
  processCpuMs,
  processMemoryMb,
  reapedChildrenCpuMs,
  threadCpuMs,
} from './proc-stats';
import { scoreWeb, setUpWeb, startBenchWeb, webBenchArgs, webBenchOptions } from './web-bench';
import { round1, round2, windowCounts } from './window-counts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The whole pipeline against the synthetic web, as `crawler crawl` runs it: the web runs in a
 * child process (its CPU is not counted); the one-shot crawl runs in this process (frontier
 * client, telemetry ingest into the embedded ClickHouse) and its `--agents` agent processes
 * (parse workers, WARC), whose CPU counts once they have exited (this process's reaped
 * children), and whose RSS is sampled each. Then, in
 * the same run, the ceiling: a bare undici loop with the same politeness over the same URLs,
 * against a fresh copy of the web (see agent.ts).
 *
 * The window opens when the crawl is called (start-up included, as a user sees it) and lasts
 * `--seconds`; pages are counted from the web's own log. `overrun_s` is the wall time past
 * `--seconds` until the crawl returned.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      // Issue 21's web (`--web simple --hosts 300 --gap-ms 1000` for the earlier figures).
      ...webBenchOptions({ hosts: 5000, seconds: 60, gapMs: 500 }),
      'no-ceiling': { type: 'boolean', default: false },
      // Agent processes (default: as `crawler crawl`, AGENT_PROCESSES or half the cores).
      agents: { type: 'string' },
    },
  });
  const bench = webBenchArgs(values);
  const { hosts, seconds, gapMs } = bench;
  const load1 = loadavg()[0] ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'bench-e2e-'));
  const setup = setUpWeb(bench.web, dir);
  try {
    const web = await startBenchWeb({ root: ROOT, bench, setup, dir: join(dir, 'web1'), load1 });
    const config = loadConfig({
      ...process.env,
      ...setup.env,
      REDIS_PREFIX: `bench-${randomBytes(4).toString('hex')}`,
      CRAWLER_DNS_MAP: web.dnsMap,
      CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
      CRAWLER_DEFAULT_GAP_MS: String(gapMs),
      AGENT_MAX_HOSTS: String(Math.max(256, hosts)),
      LOG_LEVEL: 'warn',
    });
    const seeds = readFileSync(web.seeds, 'utf8').split('\n').filter(Boolean);
    const agents = values.agents ? Number(values.agents) : defaultAgentProcesses(config);
    if (!Number.isInteger(agents) || agents < 1)
      throw new Error(`--agents must be a positive integer, got ${values.agents}`);
    // This process (frontier client, telemetry ingest into ClickHouse) and each agent process:
    // peak RSS and, per agent, its threads' CPU as last seen before it exits.
    let peakRssMb = 0;
    let agentPids: number[] = [];
    const agentPeakRssMb = new Map<number, number>();
    const agentThreads = new Map<
      number,
      { first: Map<number, number>; last: Map<number, number> }
    >();
    const sample = () => {
      peakRssMb = Math.max(peakRssMb, processMemoryMb(process.pid).rssMb);
      for (const pid of agentPids) {
        try {
          const rss = processMemoryMb(pid).rssMb;
          agentPeakRssMb.set(pid, Math.max(agentPeakRssMb.get(pid) ?? 0, rss));
          const now = threadCpuMs(pid);
          const t = agentThreads.get(pid);
          if (t) t.last = now;
          else agentThreads.set(pid, { first: new Map(), last: now });
        } catch {
          // the agent exited meanwhile
        }
      }
    };
    const sampler = setInterval(sample, 100);
    const threads0 = threadCpuMs(process.pid);
    const machine0 = machineCpuTicks();
    const cpu0 = processCpuMs(process.pid);
    const reaped0 = reapedChildrenCpuMs(process.pid);
    const calledAt = logClockMs();
    const summary = await oneShotCrawl(config, createLogger('bench', 'warn'), {
      seeds,
      durationS: seconds,
      maxPages: 0,
      outDir: join(dir, 'out'),
      agents,
      onAgents: (pids) => {
        agentPids = pids;
        sample();
      },
      onProgress: (p) =>
        console.error(
          `[${p.elapsedS.toFixed(0)}s] ${p.pages} pages, ${p.pagesPerS.toFixed(0)}/s, queued ${p.queued}`,
        ),
    });
    const returnedAt = logClockMs();
    // The agents have exited and been waited for: their CPU is this process's children's.
    const crawlCpuMs = processCpuMs(process.pid) - cpu0;
    const cpuMs = crawlCpuMs + reapedChildrenCpuMs(process.pid) - reaped0;
    const machine1 = machineCpuTicks();
    const threads1 = threadCpuMs(process.pid);
    clearInterval(sampler);
    await web.stop();
    const crawlMainMs = (threads1.get(process.pid) ?? 0) - (threads0.get(process.pid) ?? 0);
    // The agents' main threads (their event loops), as last sampled.
    let mainMs = 0;
    for (const [pid, t] of agentThreads) mainMs += (t.last.get(pid) ?? 0) - (t.first.get(pid) ?? 0);
    const elus = summary.agentEventLoopUtilization;
    const { log, manifest, score: report } = await scoreWeb(web, config.CRAWLER_UA_TOKEN, gapMs);
    const a = windowCounts(log, calledAt, calledAt + seconds * 1000);
    // CPU over the whole call (set-up and stop included) against every page the web served.
    const allPages = windowCounts(log, calledAt, returnedAt).pages;
    console.error(
      `crawl: cpu ${(cpuMs / 1000).toFixed(1)} s (agents' main threads ${(mainMs / 1000).toFixed(1)} s; ` +
        `the crawl's own process ${(crawlCpuMs / 1000).toFixed(1)} s, its main thread ${(crawlMainMs / 1000).toFixed(1)} s), ` +
        `machine ${(((machine1.busy - machine0.busy) * 100) / Math.max(machine1.total - machine0.total, 1)).toFixed(0)}% busy, ` +
        `${allPages} pages in ${((returnedAt - calledAt) / 1000).toFixed(1)} s`,
    );

    const ceilings = values['no-ceiling']
      ? null
      : await measureCeilings({
          ...bench,
          root: ROOT,
          dir: join(dir, 'ceilings'),
          config,
          crawlLog: log,
          manifest,
          setup,
        });
    const pagesPerS = a.pages / seconds;
    const cpuMsPerPage = allPages > 0 ? round2(cpuMs / allPages) : null;
    return {
      bench: 'e2e',
      web: bench.web,
      hosts,
      seconds,
      gap_ms: gapMs,
      agents,
      pages: a.pages,
      robots_fetches: a.robots,
      pages_per_s: round1(pagesPerS),
      cpu_ms_per_page: cpuMsPerPage,
      main_cpu_ms_per_page: allPages > 0 ? round2(mainMs / allPages) : null,
      other_cpu_ms_per_page: allPages > 0 ? round2((cpuMs - mainMs) / allPages) : null,
      // The busiest agent's, over its whole run (its drain included).
      event_loop_utilization: elus.length > 0 ? Math.max(...elus) : null,
      crawl_process_cpu_ms_per_page: allPages > 0 ? round2(crawlCpuMs / allPages) : null,
      bytes_per_page: a.pages > 0 ? Math.round(a.bytes / a.pages) : null,
      peak_rss_mb: Math.round(peakRssMb + [...agentPeakRssMb.values()].reduce((x, y) => x + y, 0)),
      peak_rss_mb_per_agent: Math.round(Math.max(0, ...agentPeakRssMb.values())),
      crawl_process_peak_rss_mb: Math.round(peakRssMb),
      ramp_s: a.rampS,
      first_page_s: a.firstPageS,
      overrun_s: round1((returnedAt - calledAt) / 1000 - seconds),
      peak_pages_per_s: a.peakPagesPerS,
      best_10s_pages_per_s: a.best10sPagesPerS,
      politeness_violations: report.politeness_violations,
      robots_violations: report.robots_violations,
      duplicate_fetches: report.duplicate_fetches,
      coverage: Number(report.coverage.toFixed(4)),
      trap_pages: report.trap_pages,
      agent_pages: summary.pages,
      analytics_rows: summary.analyticsRows,
      stopped_by: summary.stoppedBy,
      ...(ceilings ? ceilingComparison({ pagesPerS, cpuMsPerPage }, ceilings) : {}),
      load_avg_1m: round2(load1),
    };
  } finally {
    setup.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
