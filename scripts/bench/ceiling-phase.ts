import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '@crawler/domain/config';
import {
  readRequestLog,
  scoreCrawl,
  type Manifest,
  type RequestLogEntry,
} from '@crawler/synthetic-web';
import { buildCeilingHosts, type CeilingMode, type CeilingPlan } from './ceiling-plan';
import { measureChild, type Measured } from './measure-child';
import { round1, round2, windowCounts, type WindowCounts } from './window-counts';
import type { WebSetup } from './web-bench';
import { startWebChild } from './web-child';

/** What the ceiling child printed last (agent-ceiling.ts). */
interface CeilingChildStats {
  requests?: number;
  errors?: number;
  workErrors?: number;
  /** Its main thread's event-loop utilization, first response → SIGTERM. */
  elu?: number | null;
  /** `work` mode: the workers' thread ids and event-loop utilization. */
  workers?: Array<{ tid: number; elu: number | null }>;
}

/** The ceiling phase of a bench: what a bare undici loop reached, in the same run. */
export interface CeilingResult {
  mode: CeilingMode;
  counts: WindowCounts;
  measured: Measured;
  politenessViolations: number;
  stats: CeilingChildStats;
  /** CPU of the worker threads within the window (ms; 0 in `fetch` mode). */
  workersCpuMs: number;
}

/** Options of {@link measureCeiling}. */
export interface CeilingOptions {
  root: string;
  hosts: number;
  seed: string;
  dir: string;
  seconds: number;
  gapMs: number;
  config: Config;
  crawlLog: RequestLogEntry[];
  manifest: Manifest;
  /** The bench's web (profile, certificate, CA). */
  setup: WebSetup;
}

/**
 * A ceiling (`agent-ceiling.ts`, a bare undici loop with the crawler's politeness; in `work`
 * mode also the unavoidable per-byte work, in worker threads) against a fresh copy of the same
 * synthetic web: it replays, per host, the requests the crawler made (from `crawlLog`) and goes
 * on with the expected URLs the crawler did not reach. Measured like the crawler: from its first
 * response for `seconds`, from the web's own log.
 */
export async function measureCeiling(
  o: CeilingOptions & { mode: CeilingMode },
): Promise<CeilingResult> {
  const web = await startWebChild({
    root: o.root,
    hosts: o.hosts,
    seed: o.seed,
    dir: o.dir,
    args: o.setup.args,
  });
  const label = `ceiling-${o.mode}`;
  try {
    const plan: CeilingPlan = {
      mode: o.mode,
      caPem: o.setup.caPem,
      port: web.port,
      rampPerS: o.config.AGENT_LEASE_RAMP_PER_S,
      userAgent: o.config.userAgent,
      connectTimeoutMs: o.config.FETCH_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: o.config.FETCH_FIRST_BYTE_TIMEOUT_MS,
      totalTimeoutMs: o.config.FETCH_TOTAL_TIMEOUT_MS,
      maxBodyBytes: o.config.FETCH_MAX_BODY_BYTES,
      backoffBaseMs: o.config.FRONTIER_BACKOFF_BASE_MS,
      backoffMaxMs: o.config.FRONTIER_BACKOFF_MAX_MS,
      robotsRetryBaseMs: o.config.ROBOTS_RETRY_BASE_MS,
      hosts: buildCeilingHosts(o.crawlLog, o.manifest, o.gapMs),
    };
    const planPath = join(o.dir, 'ceiling-plan.json');
    writeFileSync(planPath, JSON.stringify(plan));
    const measured = await measureChild({
      label,
      cwd: o.root,
      nodeArgs: ['--import', 'tsx', 'scripts/bench/agent-ceiling.ts', planPath],
      env: process.env,
      logPath: web.logPath,
      seconds: o.seconds,
      collectStdout: true,
    });
    await web.stop();
    const log = await readRequestLog(web.logPath);
    const score = scoreCrawl({
      log,
      manifest: o.manifest,
      productToken: o.config.CRAWLER_UA_TOKEN,
      minGapMs: o.gapMs,
    });
    const last = measured.stdout.at(-1) ?? '{}';
    let stats: CeilingChildStats = {};
    try {
      stats = JSON.parse(last) as CeilingChildStats;
    } catch {
      console.error(`${label}: unreadable last line ${last}`);
    }
    const workersCpuMs = (stats.workers ?? []).reduce(
      (sum, w) => sum + (measured.cpuMsByTid.get(w.tid) ?? 0),
      0,
    );
    console.error(
      `${label}: ${last}; politeness violations ${score.politeness_violations}; ` +
        `window cpu ${(measured.cpuMs / 1000).toFixed(1)} s (main thread ${(measured.threadsCpuMs.mainMs / 1000).toFixed(1)} s, ` +
        `workers ${(workersCpuMs / 1000).toFixed(1)} s), machine ${(measured.machineBusy * 100).toFixed(0)}% busy`,
    );
    for (const v of score.violations.slice(0, 5))
      console.error(`${label} violation ${v.kind} ${v.host}: ${v.detail}`);
    return {
      mode: o.mode,
      counts: windowCounts(log, measured.windowStartMs, measured.windowEndMs),
      measured,
      politenessViolations: score.politeness_violations,
      stats,
      workersCpuMs,
    };
  } finally {
    await web.stop();
  }
}

/**
 * Both ceilings, one after the other, each against a fresh copy of the web for the same seconds:
 * `fetch` (the bare polite loop) and `work` (the same loop with the per-byte work).
 */
export async function measureCeilings(
  o: CeilingOptions,
): Promise<{ fetch: CeilingResult; work: CeilingResult }> {
  const fetch = await measureCeiling({ ...o, mode: 'fetch', dir: join(o.dir, 'fetch') });
  const work = await measureCeiling({ ...o, mode: 'work', dir: join(o.dir, 'work') });
  return { fetch, work };
}

/** Pages per second of a ceiling (0 without pages). */
export function ceilingPagesPerS(c: CeilingResult): number {
  return c.counts.seconds > 0 ? c.counts.pages / c.counts.seconds : 0;
}

/**
 * A ceiling's fields of a bench's JSON line, `${prefix}_…`: pages, rate, CPU per page (all
 * threads; the main thread; the workers; the rest), event-loop utilization (main; the workers'
 * mean), wire bytes per page, politeness, peak, first page and ramp.
 */
export function ceilingFields(prefix: string, c: CeilingResult): Record<string, unknown> {
  const n = c.counts.pages;
  const perPage = (ms: number): number | null => (n > 0 ? round2(ms / n) : null);
  const workerElus = (c.stats.workers ?? [])
    .map((w) => w.elu)
    .filter((x): x is number => typeof x === 'number');
  const mainMs = c.measured.threadsCpuMs.mainMs;
  return {
    [`${prefix}_pages`]: n,
    [`${prefix}_pages_per_s`]: round1(ceilingPagesPerS(c)),
    [`${prefix}_cpu_ms_per_page`]: perPage(c.measured.cpuMs),
    [`${prefix}_main_cpu_ms_per_page`]: perPage(mainMs),
    [`${prefix}_workers_cpu_ms_per_page`]: c.mode === 'work' ? perPage(c.workersCpuMs) : null,
    [`${prefix}_other_cpu_ms_per_page`]: perPage(
      Math.max(0, c.measured.cpuMs - mainMs - c.workersCpuMs),
    ),
    [`${prefix}_event_loop_utilization`]:
      typeof c.stats.elu === 'number' ? round2(c.stats.elu) : null,
    [`${prefix}_workers_event_loop_utilization`]:
      workerElus.length > 0
        ? round2(workerElus.reduce((a, b) => a + b, 0) / workerElus.length)
        : null,
    [`${prefix}_workers`]: c.stats.workers?.length ?? 0,
    [`${prefix}_bytes_per_page`]: n > 0 ? Math.round(c.counts.bytes / n) : null,
    [`${prefix}_politeness_violations`]: c.politenessViolations,
    [`${prefix}_peak_pages_per_s`]: c.counts.peakPagesPerS,
    [`${prefix}_first_page_s`]: c.counts.firstPageS,
    [`${prefix}_ramp_s`]: c.counts.rampS,
  };
}

/**
 * Both ceilings' fields of a bench's JSON line, and the crawler's rate and CPU against each:
 * `ceiling_work_ratio` (the target's denominator), `ceiling_fetch_ratio` (beside it) and
 * `cpu_vs_ceiling_work` (the crawler's CPU per page over the work ceiling's).
 */
export function ceilingComparison(
  crawler: { pagesPerS: number; cpuMsPerPage: number | null },
  r: { fetch: CeilingResult; work: CeilingResult },
): Record<string, unknown> {
  const ratio = (c: CeilingResult): number | null => {
    const rate = ceilingPagesPerS(c);
    return rate > 0 ? round2(crawler.pagesPerS / rate) : null;
  };
  const workCpu = r.work.counts.pages > 0 ? r.work.measured.cpuMs / r.work.counts.pages : 0;
  return {
    ceiling_work_ratio: ratio(r.work),
    ceiling_fetch_ratio: ratio(r.fetch),
    cpu_vs_ceiling_work:
      crawler.cpuMsPerPage !== null && workCpu > 0 ? round2(crawler.cpuMsPerPage / workCpu) : null,
    ...ceilingFields('ceiling_fetch', r.fetch),
    ...ceilingFields('ceiling_work', r.work),
  };
}
