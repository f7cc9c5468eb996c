import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { z } from 'zod';

/** The part of `crawler crawl`'s summary (its last stdout line) the quality bench reports. */
const summarySchema = z.object({
  pages: z.number(),
  errors: z.number(),
  seconds: z.number(),
  stoppedBy: z.string(),
  refused: z.object({
    robots: z.number(),
    network: z.number(),
    trap: z.number(),
    budget: z.number(),
  }),
  deadLetters: z.number(),
});
export type CrawlSummary = z.infer<typeof summarySchema>;

/** What one run of `crawler crawl` gave. */
export interface CrawlRun {
  summary: CrawlSummary;
  /** Wall time from spawning the command to its exit (build check and start-up included), s. */
  wallS: number;
}

/**
 * Runs the one-shot `crawler crawl` as a user does, in a child process: the `crawler` bin
 * (apps/coordinator/bin/crawler.mjs: the compiled CLI, rebuilt first when its sources are newer),
 * or with `fromSource` the TypeScript CLI through tsx. Names resolve through the synthetic web's
 * DNS map, its loopback addresses are allowed, and the gap is the one given. The CLI makes and
 * deletes its own Redis key prefix and writes only under `outDir`. Its progress lines go to
 * stderr, prefixed `crawl:`.
 */
export async function runCrawlerCli(o: {
  root: string;
  seedsPath: string;
  dnsMapPath: string;
  outDir: string;
  seconds: number;
  gapMs: number;
  hosts: number;
  fromSource: boolean;
}): Promise<CrawlRun> {
  const entry = o.fromSource
    ? ['--import', 'tsx', 'apps/coordinator/src/cli/main.ts']
    : ['apps/coordinator/bin/crawler.mjs'];
  const args = [
    'crawl',
    ...['--seeds', o.seedsPath, '--out', o.outDir, '--duration', String(o.seconds)],
    ...['--gap-ms', String(o.gapMs), '--allow', '127.0.0.0/8', '--dns-map', o.dnsMapPath],
    ...['--concurrency', String(Math.max(256, o.hosts))],
  ];
  const started = performance.now();
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: o.root,
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stderr }).on('line', (line) => console.error(`crawl: ${line}`));
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  });
  if (code !== 0) throw new Error(`crawler crawl exited with ${code}`);
  const last = lines.filter((l) => l.startsWith('{')).at(-1);
  if (last === undefined) throw new Error('crawler crawl printed no summary');
  return {
    summary: summarySchema.parse(JSON.parse(last)),
    wallS: (performance.now() - started) / 1000,
  };
}
