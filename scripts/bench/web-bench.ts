import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestCa } from '@crawler/testing';
import { readRequestLog, scoreCrawl } from '@crawler/synthetic-web';
import type { Manifest, RequestLogEntry, ScoreReport } from '@crawler/synthetic-web';
import { startWebChild, type WebChild } from './web-child';

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
    /** `realistic` (default: heavy-tailed ~80 KB pages, gzip/br, HTTPS, …) or `simple`. */
    web: { type: 'string', default: 'realistic' },
  } as const;
}

/** The values of {@link webBenchOptions}, as numbers (the seed as the web's CLI takes it). */
export function webBenchArgs(values: {
  hosts: string;
  seconds: string;
  'gap-ms': string;
  seed: string;
  web: string;
}): { hosts: number; seconds: number; gapMs: number; seed: string; web: WebProfile } {
  if (values.web !== 'realistic' && values.web !== 'simple')
    throw new Error(`--web must be realistic or simple, got ${values.web}`);
  return {
    hosts: Number(values.hosts),
    seconds: Number(values.seconds),
    gapMs: Number(values['gap-ms']),
    seed: values.seed,
    web: values.web,
  };
}

/** The synthetic web's profile (`packages/synthetic-web`, model/realistic.ts). */
export type WebProfile = 'realistic' | 'simple';

/**
 * How the bench's webs are served, and what the crawler and the ceiling are told: on the
 * realistic web a test CA made here (disposed by `dispose`) and one `*.web.test` certificate it
 * issued, so ~80% of the hosts speak HTTPS; the crawler trusts the CA through FETCH_CA_FILE.
 */
export interface WebSetup {
  profile: WebProfile;
  /** More `serve` flags for every web child of the bench. */
  args: string[];
  /** The CA's certificate file ('' on the simple web) and PEM. */
  caFile: string;
  caPem: string;
  /** The crawler's extra environment (FETCH_CA_FILE). */
  env: Record<string, string>;
  dispose(): void;
}

/** Makes the {@link WebSetup} of a profile; files go under `dir`. */
export function setUpWeb(profile: WebProfile, dir: string): WebSetup {
  if (profile === 'simple')
    return { profile, args: ['--profile', 'simple'], caFile: '', caPem: '', env: {}, dispose() {} };
  const ca = createTestCa('synthetic web bench CA');
  try {
    const leaf = ca.issue(['*.web.test']);
    const certFile = join(dir, 'web-cert.pem');
    const keyFile = join(dir, 'web-key.pem');
    writeFileSync(certFile, leaf.cert);
    writeFileSync(keyFile, leaf.key, { mode: 0o600 });
    return {
      profile,
      args: ['--profile', 'realistic', '--tls-cert', certFile, '--tls-key', keyFile],
      caFile: ca.certFile,
      caPem: ca.cert,
      env: { FETCH_CA_FILE: ca.certFile },
      dispose: () => ca.dispose(),
    };
  } catch (err) {
    ca.dispose();
    throw err;
  }
}

/** Starts the crawler's web of a bench (under `dir`), saying what it is and the load. */
export function startBenchWeb(o: {
  root: string;
  bench: { hosts: number; seed: string; web: WebProfile };
  setup: WebSetup;
  dir: string;
  load1: number;
}): Promise<WebChild> {
  const { hosts, seed, web } = o.bench;
  console.error(
    `synthetic web (${web}): ${hosts} hosts, seed ${seed}; load average ${o.load1.toFixed(2)}`,
  );
  return startWebChild({ root: o.root, hosts, seed, dir: o.dir, args: o.setup.args });
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
