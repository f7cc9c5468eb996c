import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '@crawler/domain/config';
import { readRequestLog, scoreCrawl } from '@crawler/synthetic-web';
import { runCrawlerCli } from './quality-crawl';
import { runOracle } from './quality-oracle';
import { startQualityWeb } from './quality-web';
import { round2 } from './window-counts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Issue 12's targets: trap and variant shares of all fetches, coverage against the oracle's. */
const TARGETS = { trap_fetch_share: 0.03, variant_duplicate_share: 0.01, coverage_ratio: 0.9 };

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/**
 * Crawl quality against the synthetic web with every trap family (calendars in several URL
 * forms, pagers, faceted views, session ids, soft-404 hosts, no-op parameters): our crawler as a
 * user runs it (`crawler crawl`, the repository's default politeness) for `--seconds`, then the
 * oracle (the reference crawler restricted to the manifest's URLs, same politeness) for as long,
 * on a fresh copy of the same web. Both are scored from the web's own request log.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      hosts: { type: 'string' },
      seconds: { type: 'string' },
      'gap-ms': { type: 'string' },
      seed: { type: 'string', default: '1' },
      smoke: { type: 'boolean', default: false },
      'from-source': { type: 'boolean', default: false },
      /** Keep the run's folder (request logs of both crawls, WARC files) and print its path. */
      keep: { type: 'boolean', default: false },
    },
  });
  const config = loadConfig({ ...process.env, CRAWLER_NETWORK_ALLOW: '127.0.0.0/8' });
  const hosts = Number(values.hosts ?? (values.smoke ? 40 : 300));
  const seconds = Number(values.seconds ?? (values.smoke ? 20 : 120));
  const gapMs = Number(values['gap-ms'] ?? config.CRAWLER_DEFAULT_GAP_MS);
  const seed = values.seed ?? '1';
  const token = config.CRAWLER_UA_TOKEN.toLowerCase();
  if (![hosts, seconds, gapMs].every((n) => Number.isInteger(n) && n >= 0) || hosts < 1)
    throw new Error('--hosts, --seconds and --gap-ms must be whole numbers (hosts ≥ 1)');
  const load1 = loadavg()[0] ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'bench-quality-'));
  try {
    console.error(
      `quality: ${hosts} hosts, seed ${seed}, ${seconds} s, gap ${gapMs} ms; load average ${load1.toFixed(2)}`,
    );
    const web = await startQualityWeb({ root: ROOT, hosts, seed, token, dir: join(dir, 'web1') });
    let crawl;
    try {
      console.error(`crawl: ${web.manifest.expected.length} expected URLs; running crawler crawl`);
      crawl = await runCrawlerCli({
        root: ROOT,
        seedsPath: web.seedsPath,
        dnsMapPath: web.dnsMapPath,
        outDir: join(dir, 'out'),
        seconds,
        gapMs,
        hosts,
        fromSource: values['from-source'],
      });
    } finally {
      await web.stop();
    }
    const report = scoreCrawl({
      log: await readRequestLog(web.logPath),
      manifest: web.manifest,
      productToken: token,
      minGapMs: gapMs,
      durationS: seconds,
    });
    for (const v of report.violations.slice(0, 10))
      console.error(`violation ${v.kind} ${v.host}: ${v.detail}`);
    console.error(
      `crawl: ${report.pages} fetches, ${report.useful_pages} useful pages, coverage ${report.coverage.toFixed(3)}; ` +
        `traps ${report.trap_fetches} ${JSON.stringify(report.trap_by_family)}, variants ${report.variant_fetches} ` +
        `${JSON.stringify(report.variant_by_kind)}, probes ${report.probe_fetches}`,
    );

    console.error(`oracle: the reference crawler on manifest URLs only, ${seconds} s`);
    const oracle = await runOracle({
      root: ROOT,
      hosts,
      seed,
      token,
      dir: join(dir, 'web2'),
      seconds,
      gapMs,
      requestTimeoutMs: config.FETCH_TOTAL_TIMEOUT_MS,
    });
    const o = oracle.report;
    for (const v of o.violations.slice(0, 5))
      console.error(`oracle violation ${v.kind} ${v.host}: ${v.detail}`);
    console.error(
      `oracle: ${o.pages} fetches, ${o.useful_pages} useful pages, coverage ${o.coverage.toFixed(3)}, ` +
        `${oracle.errors} failed requests, politeness violations ${o.politeness_violations}`,
    );

    const coverageRatio = o.coverage > 0 ? report.coverage / o.coverage : null;
    const failed: string[] = [];
    if (report.trap_fetch_share > TARGETS.trap_fetch_share) failed.push('trap_fetch_share');
    if (report.variant_duplicate_share > TARGETS.variant_duplicate_share)
      failed.push('variant_duplicate_share');
    if (coverageRatio === null || coverageRatio < TARGETS.coverage_ratio)
      failed.push('coverage_ratio');
    for (const k of ['politeness_violations', 'robots_violations', 'duplicate_fetches'] as const)
      if (report[k] > 0) failed.push(k);
    return {
      bench: 'quality',
      hosts,
      seconds,
      gap_ms: gapMs,
      seed: Number(seed),
      expected: report.expected,
      fetches: report.pages,
      robots_fetches: report.requests - report.pages,
      useful_pages: report.useful_pages,
      useful_pages_per_s: round2(report.useful_pages_per_s),
      coverage: round4(report.coverage),
      oracle_coverage: round4(o.coverage),
      coverage_ratio: coverageRatio === null ? null : round4(coverageRatio),
      trap_fetch_share: round4(report.trap_fetch_share),
      variant_duplicate_share: round4(report.variant_duplicate_share),
      trap_fetches: report.trap_fetches,
      trap_by_family: report.trap_by_family,
      variant_fetches: report.variant_fetches,
      variant_by_kind: report.variant_by_kind,
      probe_fetches: report.probe_fetches,
      other_fetches: report.other_fetches,
      politeness_violations: report.politeness_violations,
      robots_violations: report.robots_violations,
      duplicate_fetches: report.duplicate_fetches,
      oracle_fetches: o.pages,
      oracle_useful_pages: o.useful_pages,
      oracle_useful_pages_per_s: round2(o.useful_pages_per_s),
      oracle_trap_fetches: o.trap_fetches,
      oracle_politeness_violations: o.politeness_violations,
      oracle_robots_violations: o.robots_violations,
      oracle_failed_requests: oracle.errors,
      crawl_refused_trap: crawl.summary.refused.trap,
      crawl_dead_letters: crawl.summary.deadLetters,
      crawl_wall_s: Math.round(crawl.wallS * 10) / 10,
      stopped_by: crawl.summary.stoppedBy,
      targets: TARGETS,
      failed,
      pass: failed.length === 0,
      load_avg: round2(load1),
    };
  } finally {
    if (values.keep) console.error(`quality: run folder kept: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
