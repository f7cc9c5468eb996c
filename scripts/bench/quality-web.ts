import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { Manifest } from '@crawler/synthetic-web';

const servedSchema = z.object({
  port: z.number(),
  hosts: z.number(),
  dnsMap: z.string(),
  seeds: z.string(),
  manifest: z.string(),
});

/** The synthetic web with every trap family, serving in a child process (its CPU not counted). */
export interface QualityWeb {
  port: number;
  /** Files written by `cli.ts serve`: the DNS map (CRAWLER_DNS_MAP's format) and seeds.txt. */
  dnsMapPath: string;
  seedsPath: string;
  manifest: Manifest;
  dnsMap: Record<string, string>;
  seeds: string[];
  /** The web's JSON-lines request log (complete once `stop` resolved). */
  logPath: string;
  /** SIGTERM, then waits for the web to close its sockets and flush its log. */
  stop(): Promise<void>;
}

/**
 * Starts `packages/synthetic-web/src/cli.ts serve --trap-families` with a fresh log under `dir`,
 * generated for the crawler's product token.
 */
export async function startQualityWeb(o: {
  root: string;
  hosts: number;
  seed: string;
  token: string;
  dir: string;
}): Promise<QualityWeb> {
  const logPath = join(o.dir, 'requests.jsonl');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'packages/synthetic-web/src/cli.ts',
      'serve',
      '--trap-families',
      ...['--hosts', String(o.hosts), '--seed', o.seed, '--token', o.token],
      ...['--out', o.dir, '--log', logPath],
    ],
    { cwd: o.root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    })();
    return stopped;
  };
  try {
    const served = await new Promise<z.infer<typeof servedSchema>>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`synthetic web exited (${code})`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('{')) resolve(servedSchema.parse(JSON.parse(line)));
      });
    });
    const dnsMap = z
      .record(z.string(), z.string())
      .parse(JSON.parse(readFileSync(served.dnsMap, 'utf8')));
    return {
      port: served.port,
      dnsMapPath: served.dnsMap,
      seedsPath: served.seeds,
      manifest: JSON.parse(readFileSync(served.manifest, 'utf8')) as Manifest,
      dnsMap,
      seeds: readFileSync(served.seeds, 'utf8').split('\n').filter(Boolean),
      logPath,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
