import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { oneShotCrawl } from '../../apps/coordinator/src/cli/one-shot-crawl';
import { measureCeiling } from './ceiling-phase';
import { logClockMs } from './measure-child';
import { machineCpuTicks, processCpuMs, processMemoryMb, threadCpuMs } from './proc-stats';
import { scoreWeb, webBenchArgs, webBenchOptions } from './web-bench';
import { startWebChild } from './web-child';
import { round1, round2, windowCounts } from './window-counts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The whole pipeline against the synthetic web, as `crawler crawl` runs it: the web runs in a
 * child process (its CPU is not counted); the one-shot crawl (frontier client, agent, parse
 * workers, WARC, telemetry ingest into the embedded ClickHouse) runs in this process. Then, in
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
      ...webBenchOptions({ hosts: 300, seconds: 60, gapMs: 1000 }),
      'no-ceiling': { type: 'boolean', default: false },
    },
  });
  const bench = webBenchArgs(values);
  const { hosts, seconds, gapMs, seed } = bench;
  const load1 = loadavg()[0] ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'bench-e2e-'));
  try {
    console.error(`synthetic web: ${hosts} hosts, seed ${seed}; load average ${load1.toFixed(2)}`);
    const web = await startWebChild({ root: ROOT, hosts, seed, dir: join(dir, 'web1') });
    const config = loadConfig({
      ...process.env,
      REDIS_PREFIX: `bench-${randomBytes(4).toString('hex')}`,
      CRAWLER_DNS_MAP: web.dnsMap,
      CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
      CRAWLER_DEFAULT_GAP_MS: String(gapMs),
      AGENT_MAX_HOSTS: String(Math.max(256, hosts)),
      LOG_LEVEL: 'warn',
    });
    const seeds = readFileSync(web.seeds, 'utf8').split('\n').filter(Boolean);
    let peakRssMb = 0;
    const sampler = setInterval(
      () => (peakRssMb = Math.max(peakRssMb, processMemoryMb(process.pid).rssMb)),
      100,
    );
    const threads0 = threadCpuMs(process.pid);
    const machine0 = machineCpuTicks();
    const cpu0 = processCpuMs(process.pid);
    const calledAt = logClockMs();
    const summary = await oneShotCrawl(config, createLogger('bench', 'warn'), {
      seeds,
      durationS: seconds,
      maxPages: 0,
      outDir: join(dir, 'out'),
      onProgress: (p) =>
        console.error(
          `[${p.elapsedS.toFixed(0)}s] ${p.pages} pages, ${p.pagesPerS.toFixed(0)}/s, queued ${p.queued}`,
        ),
    });
    const returnedAt = logClockMs();
    const cpuMs = processCpuMs(process.pid) - cpu0;
    const machine1 = machineCpuTicks();
    const threads1 = threadCpuMs(process.pid);
    clearInterval(sampler);
    await web.stop();
    const mainMs = (threads1.get(process.pid) ?? 0) - (threads0.get(process.pid) ?? 0);
    const { log, manifest, score: report } = await scoreWeb(web, config.CRAWLER_UA_TOKEN, gapMs);
    const a = windowCounts(log, calledAt, calledAt + seconds * 1000);
    // CPU over the whole call (set-up and stop included) against every page the web served.
    const allPages = windowCounts(log, calledAt, returnedAt).pages;
    console.error(
      `crawl: cpu ${(cpuMs / 1000).toFixed(1)} s (main thread ${(mainMs / 1000).toFixed(1)} s), ` +
        `machine ${(((machine1.busy - machine0.busy) * 100) / Math.max(machine1.total - machine0.total, 1)).toFixed(0)}% busy, ` +
        `${allPages} pages in ${((returnedAt - calledAt) / 1000).toFixed(1)} s`,
    );

    const web2 = { ...bench, root: ROOT, dir: join(dir, 'web2') };
    const ceiling = values['no-ceiling']
      ? null
      : await measureCeiling({ ...web2, config, crawlLog: log, manifest });
    const c = ceiling?.counts;
    const pagesPerS = a.pages / seconds;
    const ceilingPagesPerS = c ? c.pages / c.seconds : null;
    return {
      bench: 'e2e',
      hosts,
      seconds,
      gap_ms: gapMs,
      pages: a.pages,
      robots_fetches: a.robots,
      pages_per_s: round1(pagesPerS),
      cpu_ms_per_page: allPages > 0 ? round2(cpuMs / allPages) : null,
      peak_rss_mb: Math.round(peakRssMb),
      ceiling_pages: c?.pages ?? null,
      ceiling_pages_per_s: ceilingPagesPerS === null ? null : round1(ceilingPagesPerS),
      ceiling_ratio: ceilingPagesPerS ? round2(pagesPerS / ceilingPagesPerS) : null,
      ceiling_cpu_ms_per_page:
        ceiling && c && c.pages > 0 ? round2(ceiling.measured.cpuMs / c.pages) : null,
      ramp_s: a.rampS,
      ceiling_ramp_s: c?.rampS ?? null,
      first_page_s: a.firstPageS,
      overrun_s: round1((returnedAt - calledAt) / 1000 - seconds),
      peak_pages_per_s: a.peakPagesPerS,
      best_10s_pages_per_s: a.best10sPagesPerS,
      ceiling_peak_pages_per_s: c?.peakPagesPerS ?? null,
      politeness_violations: report.politeness_violations,
      robots_violations: report.robots_violations,
      duplicate_fetches: report.duplicate_fetches,
      ceiling_politeness_violations: ceiling?.politenessViolations ?? null,
      coverage: Number(report.coverage.toFixed(4)),
      trap_pages: report.trap_pages,
      agent_pages: summary.pages,
      analytics_rows: summary.analyticsRows,
      stopped_by: summary.stoppedBy,
      load_avg_1m: round2(load1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
