/**
 * Command line of the synthetic web.
 *
 *   tsx packages/synthetic-web/src/cli.ts serve [--hosts 300] [--seed 1] [--port 0] [--log FILE]
 *       [--out DIR] [--max-pages 200] [--no-hostile] [--cycle 1] [--token crawlerbot]
 *       [--trap-families] [--log-links] [--profile simple|realistic]
 *       [--tls-cert FILE --tls-key FILE]
 *     Starts the web, writes dns-map.json, seeds.txt and manifest.json into --out, prints one JSON
 *     line {port, hosts, dnsMap, seeds, manifest} and serves until SIGINT/SIGTERM.
 *     `--profile realistic` serves the realistic web (model/realistic.ts); with a certificate and
 *     key (PEM, e.g. for `*.web.test`) ~80% of its hosts speak HTTPS.
 *     SIGUSR2 advances the cycle by one and rewrites manifest.json.
 *
 *   tsx packages/synthetic-web/src/cli.ts score --log FILE --manifest FILE [--token crawlerbot]
 *       [--min-gap-ms 1000] [--tolerance-ms 2] [--since-ms T] [--duration-s S]
 *     Prints the ScoreReport as JSON.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readRequestLog, scoreCrawl, startSyntheticWeb, type Manifest } from './index.js';

function num(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${value}`);
  return n;
}

/** parseArgs options: each of `names` takes a value. */
function valueOptions<N extends string>(...names: N[]): Record<N, { type: 'string' }> {
  const option = { type: 'string' } as const;
  return Object.fromEntries(names.map((n) => [n, option])) as Record<N, typeof option>;
}

function profileOf(value: string | undefined): 'simple' | 'realistic' {
  if (value === undefined || value === 'simple' || value === 'realistic') return value ?? 'simple';
  throw new Error(`--profile must be simple or realistic, got ${value}`);
}

async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...valueOptions(
        'hosts',
        'seed',
        'port',
        'log',
        'out',
        'max-pages',
        'cycle',
        'token',
        'profile',
        'tls-cert',
        'tls-key',
      ),
      'no-hostile': { type: 'boolean' },
      'trap-families': { type: 'boolean' },
      'log-links': { type: 'boolean' },
    },
  });
  const out = resolve(values.out ?? './data/synthetic');
  await mkdir(out, { recursive: true });
  const web = await startSyntheticWeb({
    hosts: num(values.hosts, 'hosts', 300),
    seed: num(values.seed, 'seed', 1),
    port: num(values.port, 'port', 0),
    logPath: values.log === undefined ? undefined : resolve(values.log),
    maxPagesPerHost: num(values['max-pages'], 'max-pages', 200),
    hostile: values['no-hostile'] !== true,
    cycle: num(values.cycle, 'cycle', 1),
    productToken: values.token,
    trapFamilies: values['trap-families'] === true,
    logLinks: values['log-links'] === true,
    profile: profileOf(values.profile),
    tls:
      values['tls-cert'] !== undefined && values['tls-key'] !== undefined
        ? {
            cert: await readFile(resolve(values['tls-cert']), 'utf8'),
            key: await readFile(resolve(values['tls-key']), 'utf8'),
          }
        : undefined,
  });
  const files = {
    dnsMap: resolve(out, 'dns-map.json'),
    seeds: resolve(out, 'seeds.txt'),
    manifest: resolve(out, 'manifest.json'),
  };
  const writeManifest = (): Promise<void> =>
    writeFile(files.manifest, `${JSON.stringify(web.manifest(), null, 2)}\n`);
  await writeFile(files.dnsMap, `${JSON.stringify(web.dnsMap, null, 2)}\n`);
  await writeFile(files.seeds, `${web.seeds.join('\n')}\n`);
  await writeManifest();
  process.stdout.write(
    `${JSON.stringify({ port: web.port, hosts: web.hosts.length, ...files })}\n`,
  );
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const t = web.tlsHandshakes();
      if (t.handshakes > 0)
        process.stderr.write(
          `synthetic web: ${t.handshakes} TLS handshakes, ${t.resumed} resumed\n`,
        );
      web.close().then(done, (err: unknown) => {
        process.stderr.write(`close failed: ${String(err)}\n`);
        done();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.on('SIGUSR2', () => {
      web.setCycle(web.manifest().cycle + 1);
      writeManifest().catch((err: unknown) =>
        process.stderr.write(`manifest write failed: ${String(err)}\n`),
      );
    });
  });
}

async function score(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: valueOptions(
      'log',
      'manifest',
      'token',
      'min-gap-ms',
      'tolerance-ms',
      'since-ms',
      'duration-s',
    ),
  });
  if (values.log === undefined || values.manifest === undefined)
    throw new Error('score needs --log and --manifest');
  const manifest = JSON.parse(await readFile(values.manifest, 'utf8')) as Manifest;
  const report = scoreCrawl({
    log: await readRequestLog(values.log),
    manifest,
    productToken: values.token ?? 'crawlerbot',
    minGapMs: num(values['min-gap-ms'], 'min-gap-ms', 1000),
    toleranceMs: num(values['tolerance-ms'], 'tolerance-ms', 2),
    sinceMs: values['since-ms'] === undefined ? undefined : num(values['since-ms'], 'since-ms', 0),
    durationS:
      values['duration-s'] === undefined ? undefined : num(values['duration-s'], 'duration-s', 0),
  });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'serve') await serve(rest);
  else if (command === 'score') await score(rest);
  else
    throw new Error('usage: cli.ts serve [options] | score --log FILE --manifest FILE [options]');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
