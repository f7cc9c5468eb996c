import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '@crawler/shared/config';
import { createLogger } from '@crawler/shared/log';
import { readRequestLog, scoreCrawl, type Manifest } from '@crawler/synthetic-web';
import { oneShotCrawl } from '../../apps/coordinator/src/cli/one-shot-crawl';

/**
 * The whole pipeline against the synthetic web: the web runs in a child process (its CPU is not
 * counted); the crawl (frontier client, agent, WARC, telemetry ingest into chdb) runs here.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      hosts: { type: 'string', default: '300' },
      seconds: { type: 'string', default: '60' },
      'gap-ms': { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
    },
  });
  const hosts = Number(values.hosts);
  const seconds = Number(values.seconds);
  const gapMs = Number(values['gap-ms']);
  const dir = mkdtempSync(join(tmpdir(), 'bench-e2e-'));
  const web = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'packages/synthetic-web/src/cli.ts',
      'serve',
      '--hosts',
      String(hosts),
      '--seed',
      values.seed ?? '1',
      '--out',
      dir,
      '--log',
      join(dir, 'requests.jsonl'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const info = await new Promise<{ dnsMap: string; seeds: string; manifest: string }>(
    (resolve, reject) => {
      web.once('exit', (code) => reject(new Error(`synthetic web exited (${code})`)));
      createInterface({ input: web.stdout }).on('line', (line) => {
        if (line.startsWith('{'))
          resolve(JSON.parse(line) as { dnsMap: string; seeds: string; manifest: string });
      });
    },
  );
  const config = loadConfig({
    ...process.env,
    REDIS_PREFIX: `bench-${randomBytes(4).toString('hex')}`,
    CRAWLER_DNS_MAP: info.dnsMap,
    CRAWLER_NETWORK_ALLOW: '127.0.0.0/8',
    CRAWLER_DEFAULT_GAP_MS: String(gapMs),
    AGENT_MAX_HOSTS: String(Math.max(256, hosts)),
    LOG_LEVEL: 'warn',
  });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const cpu0 = process.cpuUsage();
  const seeds = readFileSync(info.seeds, 'utf8').split('\n').filter(Boolean);
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
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  const exited = new Promise((r) => web.once('exit', r));
  web.kill('SIGTERM');
  await exited;
  const manifest = JSON.parse(readFileSync(info.manifest, 'utf8')) as Manifest;
  const report = scoreCrawl({
    log: await readRequestLog(join(dir, 'requests.jsonl')),
    manifest,
    productToken: config.CRAWLER_UA_TOKEN,
    minGapMs: gapMs,
  });
  rmSync(dir, { recursive: true, force: true });
  return {
    bench: 'e2e',
    hosts,
    seconds: Number(summary.seconds.toFixed(1)),
    pages: summary.pages,
    pages_per_s: Number(summary.pagesPerS.toFixed(1)),
    cpu_s: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
    peak_rss_mb: Math.round(peakRss / 1048576),
    coverage: Number(report.coverage.toFixed(4)),
    politeness_violations: report.politeness_violations,
    robots_violations: report.robots_violations,
    duplicate_fetches: report.duplicate_fetches,
    trap_pages: report.trap_pages,
    gap_ms: gapMs,
    stopped_by: summary.stoppedBy,
  };
}
