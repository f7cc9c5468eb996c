import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Manifest, ScoreReport } from './index.js';
import { httpGet } from './testing/http-get.js';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

function run(args: string[]): {
  child: ReturnType<typeof spawn>;
  firstLine: Promise<string>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.on('exit', () => reject(new Error(`exited early: ${out}`)));
  });
  firstLine.catch(() => undefined);
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, firstLine, exit };
}

describe('cli', () => {
  it('serves, writes its files, and scores the log', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'synthetic-cli-'));
    try {
      const log = join(dir, 'requests.jsonl');
      const serve = run([
        'serve',
        '--hosts',
        '20',
        '--seed',
        '2',
        '--port',
        '0',
        '--log',
        log,
        '--out',
        dir,
      ]);
      const info = JSON.parse(await serve.firstLine) as {
        port: number;
        hosts: number;
        dnsMap: string;
        seeds: string;
        manifest: string;
      };
      expect(info.hosts).toBe(20);
      const dns = JSON.parse(await readFile(info.dnsMap, 'utf8')) as Record<string, string>;
      const seeds = (await readFile(info.seeds, 'utf8')).trim().split('\n');
      expect(seeds).toHaveLength(20);
      const manifest = JSON.parse(await readFile(info.manifest, 'utf8')) as Manifest;
      expect(manifest.port).toBe(info.port);
      const r = await httpGet(
        String(dns['s0000.web.test']),
        info.port,
        's0000.web.test',
        '/robots.txt',
      );
      expect(r.status).toBeGreaterThan(0);
      serve.child.kill('SIGTERM');
      expect(await serve.exit).toBe(0);
      const score = run([
        'score',
        '--log',
        log,
        '--manifest',
        info.manifest,
        '--token',
        'crawlerbot',
        '--min-gap-ms',
        '100',
      ]);
      let text = '';
      score.child.stdout?.on('data', (c: Buffer) => (text += c.toString()));
      expect(await score.exit).toBe(0);
      const report = JSON.parse(text) as ScoreReport;
      expect(report.requests).toBe(1);
      expect(report.expected).toBe(manifest.expected.length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
