import { readFileSync } from 'node:fs';
import { readRequestLog, scoreCrawl } from '@crawler/synthetic-web';
import type { Manifest, RequestLogEntry, ScoreReport } from '@crawler/synthetic-web';

/**
 * The options every crawl bench against the synthetic web takes (`--hosts`, `--seconds`,
 * `--gap-ms`, `--seed`), with the bench's own defaults: spread into its parseArgs options.
 */
export function webBenchOptions(defaults: { hosts: number; seconds: number; gapMs: number }) {
  return {
    hosts: { type: 'string', default: String(defaults.hosts) },
    seconds: { type: 'string', default: String(defaults.seconds) },
    'gap-ms': { type: 'string', default: String(defaults.gapMs) },
    seed: { type: 'string', default: '1' },
  } as const;
}

/** The values of {@link webBenchOptions}, as numbers (the seed as the web's CLI takes it). */
export function webBenchArgs(values: {
  hosts: string;
  seconds: string;
  'gap-ms': string;
  seed: string;
}): { hosts: number; seconds: number; gapMs: number; seed: string } {
  return {
    hosts: Number(values.hosts),
    seconds: Number(values.seconds),
    gapMs: Number(values['gap-ms']),
    seed: values.seed,
  };
}

/**
 * The web's request log (complete once the web stopped) scored against its manifest for the
 * crawler's product token and gap; the first violations are printed.
 */
export async function scoreWeb(
  web: { logPath: string; manifest: string },
  productToken: string,
  minGapMs: number,
): Promise<{ log: RequestLogEntry[]; manifest: Manifest; score: ScoreReport }> {
  const log = await readRequestLog(web.logPath);
  const manifest = JSON.parse(readFileSync(web.manifest, 'utf8')) as Manifest;
  const score = scoreCrawl({ log, manifest, productToken, minGapMs });
  for (const v of score.violations.slice(0, 10))
    console.error(`violation ${v.kind} ${v.host}: ${v.detail}`);
  return { log, manifest, score };
}
