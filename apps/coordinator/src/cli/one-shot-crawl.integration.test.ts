import { afterAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { readWarcFile } from '@crawler/adapters/warc';

/**
 * `crawler crawl` as a user runs it: the CLI in a child process whose working folder is a fresh
 * temporary folder, against small sites on 127.0.0.1. Everything must land under --out (WARC
 * files where the summary says), the crawl must end by itself once nothing fetchable is left,
 * and the URLs it did not fetch are counted by why.
 */
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const refusedSchema = z.object({
  robots: z.number(),
  network: z.number(),
  trap: z.number(),
  budget: z.number(),
});
const summarySchema = z.object({
  pages: z.number(),
  errors: z.number(),
  robotsDenied: z.number(),
  refused: refusedSchema,
  seconds: z.number(),
  stoppedBy: z.enum(['done', 'duration', 'max_pages', 'signal']),
  agents: z.number(),
  warcDir: z.string(),
  warcFiles: z.number(),
  deadLetters: z.number(),
});
type Summary = z.infer<typeof summarySchema>;

interface Site {
  origin: string;
  server: Server;
  /** Requests by path. */
  requests: Map<string, number>;
  /** The most requests it had open at once. */
  maxOpen: number;
}

/**
 * A site on `address` (127.0.0.1 unless given): path → [status, body]; HTML unless the path is
 * /robots.txt. Answers after `delayMs`, counting requests and how many were open at once.
 */
async function startSite(
  pages: Record<string, [number, string]>,
  { address = '127.0.0.1', delayMs = 0 }: { address?: string; delayMs?: number } = {},
): Promise<Site> {
  let open = 0;
  const site: Site = { origin: '', server: createServer(), requests: new Map(), maxOpen: 0 };
  site.server.on('request', (req, res) => {
    const path = req.url ?? '';
    site.requests.set(path, (site.requests.get(path) ?? 0) + 1);
    site.maxOpen = Math.max(site.maxOpen, ++open);
    setTimeout(() => {
      const page = pages[path];
      const [status, body] = page ?? [404, 'not found'];
      res.writeHead(status, {
        'content-type': path === '/robots.txt' || !page ? 'text/plain' : 'text/html',
      });
      res.end(body, () => open--);
    }, delayMs);
  });
  await new Promise<void>((resolve) => site.server.listen(0, address, resolve));
  site.origin = `http://${address}:${(site.server.address() as AddressInfo).port}`;
  return site;
}

/** Every `.warc.gz` under `dir`, by path. */
function warcFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.warc.gz'))
    .map((e) => join(e.parentPath, e.name));
}

const html = (...links: string[]) =>
  `<!doctype html><html><head><title>t</title></head><body><p>Some text to index.</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ')}</body></html>`;

const folders: string[] = [];
function tempFolder(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `oneshot-${label}-`));
  folders.push(dir);
  return dir;
}

/** Runs `crawler crawl --seeds seeds.txt --out ./out …` in `cwd`; DATA_DIR only when given. */
function crawl(
  cwd: string,
  seeds: string[],
  args: string[],
  env: Record<string, string> = {},
  onStart: (cli: ChildProcess) => void = () => undefined,
): Promise<{ code: number; out: string; err: string; summary: Summary }> {
  writeFileSync(join(cwd, 'seeds.txt'), `${seeds.join('\n')}\n`);
  const base: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(base))
    if (/^(DATA_DIR|CRAWLER_|HOST_DAILY_BUDGET|S3_|AGENT_|FRONTIER_)/.test(k)) delete base[k];
  return new Promise((resolve, reject) => {
    const cli = execFile(
      process.execPath,
      [
        '--import',
        TSX,
        MAIN,
        'crawl',
        '--seeds',
        'seeds.txt',
        '--out',
        './out',
        '--gap-ms',
        '20',
        ...args,
      ],
      {
        cwd,
        env: {
          ...base,
          REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
          LOG_LEVEL: 'warn',
          AGENT_PARSE_THREADS: '1',
          FRONTIER_SHARDS: '4',
          ...env,
        },
        timeout: 90_000,
      },
      (error, stdout, stderr) => {
        const code = error ? Number(error.code ?? 1) : 0;
        if (code !== 0) return reject(new Error(`crawler exited ${code}: ${stderr}`));
        const summary = summarySchema.parse(
          JSON.parse(readFileSync(join(cwd, 'out', 'summary.json'), 'utf8')),
        );
        resolve({ code, out: stdout, err: stderr, summary });
      },
    );
    onStart(cli);
  });
}

const sites: Server[] = [];
/** Sites that count their requests: on 127.0.0.2… so each is a host of its own. */
async function countingSites(n: number, delayMs: number): Promise<Site[]> {
  const made: Site[] = [];
  for (let i = 0; i < n; i++) {
    const site = await startSite(
      {
        '/robots.txt': [404, ''],
        '/': [200, html('/a', '/b', '/c')],
        '/a': [200, html('/', '/b')],
        '/b': [200, html('/c')],
        '/c': [200, html('/a')],
      },
      { address: `127.0.0.${i + 2}`, delayMs },
    );
    sites.push(site.server);
    made.push(site);
  }
  return made;
}
afterAll(async () => {
  await Promise.all(sites.map((s) => new Promise((r) => s.close(r))));
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('crawler crawl --out DIR', () => {
  it('keeps everything under --out, WARC files where the summary says, readable', async () => {
    const site = await startSite({
      '/robots.txt': [404, ''],
      '/': [200, html('/a', '/b', '/loop/loop/loop/')],
      '/a': [200, html('/')],
      '/b': [200, html('/a')],
    });
    sites.push(site.server);
    const cwd = tempFolder('cwd');
    const run = await crawl(cwd, [`${site.origin}/`], ['--allow', '127.0.0.0/8']);

    expect(run.summary).toMatchObject({
      stoppedBy: 'done',
      pages: 3,
      errors: 0,
      refused: { robots: 0, network: 0, trap: 1, budget: 0 },
    });
    // Nothing beside the seeds file and --out in the working folder (no ./data).
    expect(readdirSync(cwd).sort()).toEqual(['out', 'seeds.txt']);
    const out = join(cwd, 'out');
    expect(run.summary.warcDir.startsWith(join(out, 'warc') + sep)).toBe(true);
    const files = readdirSync(run.summary.warcDir);
    const warcs = files.filter((f) => f.endsWith('.warc.gz'));
    expect(warcs.length).toBe(run.summary.warcFiles);
    expect(warcs.length).toBeGreaterThan(0);
    expect(files.filter((f) => f.endsWith('.shipped'))).toEqual([]);

    const responses: string[] = [];
    for (const f of warcs)
      for await (const rec of readWarcFile(join(run.summary.warcDir, f)))
        if (rec.type === 'response' && rec.targetUri) responses.push(rec.targetUri);
    // Every request is archived, the host's one soft-404 probe (a random path) included.
    const probe = /\/[0-9a-f]{12}-[0-9a-f]{6}\.html$/;
    expect(responses.filter((u) => !probe.test(u)).sort()).toEqual(
      ['/', '/a', '/b', '/robots.txt'].map((p) => `${site.origin}${p}`).sort(),
    );
    expect(responses.filter((u) => probe.test(u))).toHaveLength(1);

    expect(JSON.parse(run.out.trim().split('\n').pop() ?? '')).toEqual(
      JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')),
    );
    expect(run.err).toMatch(/done \(done\): 3 pages .* refused: trap 1; 1 WARC files in /);
  });

  it('ends by itself when the network guard refuses every seed, and says so', async () => {
    const cwd = tempFolder('cwd');
    const dataDir = tempFolder('data');
    // No --allow (and no CRAWLER_NETWORK_ALLOW): loopback and link-local are refused.
    const run = await crawl(cwd, ['http://127.0.0.1:1/', 'http://169.254.169.254/'], [], {
      DATA_DIR: dataDir,
    });
    expect(run.summary).toMatchObject({
      stoppedBy: 'done',
      pages: 0,
      errors: 0,
      refused: { robots: 0, network: 2, trap: 0, budget: 0 },
      deadLetters: 2,
    });
    expect(run.summary.seconds).toBeLessThan(30); // --duration 120 by default
    expect(run.err).toMatch(/done \(done\): 0 pages .* 0 errors, refused: network 2;/);
    // DATA_DIR of the environment is not the crawl's: nothing was written there.
    expect(readdirSync(dataDir)).toEqual([]);
    expect(readdirSync(cwd).sort()).toEqual(['out', 'seeds.txt']);
  });

  it('counts URLs robots.txt disallows', async () => {
    const site = await startSite({
      '/robots.txt': [200, 'User-agent: *\nDisallow: /private\n'],
      '/': [200, html('/a', '/private/y')],
      '/a': [200, html('/')],
      '/private/x': [200, html()],
      '/private/y': [200, html()],
    });
    sites.push(site.server);
    const run = await crawl(
      tempFolder('cwd'),
      [`${site.origin}/`, `${site.origin}/private/x`],
      ['--allow', '127.0.0.0/8'],
    );
    expect(run.summary).toMatchObject({
      stoppedBy: 'done',
      pages: 2,
      robotsDenied: 2,
      refused: { robots: 2, network: 0, trap: 0, budget: 0 },
    });
    expect(run.err).toMatch(/refused: robots 2;/);
  });

  it('counts URLs left on hosts whose daily budget is spent, and ends', async () => {
    const site = await startSite({
      '/robots.txt': [404, ''],
      '/': [200, html('/a', '/b')],
      '/a': [200, html()],
      '/b': [200, html()],
    });
    sites.push(site.server);
    const run = await crawl(tempFolder('cwd'), [`${site.origin}/`], ['--allow', '127.0.0.0/8'], {
      HOST_DAILY_BUDGET: '1',
    });
    expect(run.summary).toMatchObject({
      stoppedBy: 'done',
      pages: 1,
      refused: { robots: 0, network: 0, trap: 0, budget: 2 },
    });
    expect(run.summary.seconds).toBeLessThan(30);
  });

  it('--agents 2: two agent processes share the crawl, each URL fetched once, one request at a time per host', async () => {
    const web = await countingSites(8, 30);
    const cwd = tempFolder('cwd');
    // Each agent holds at most 2 hosts at once: neither can take the whole web.
    const run = await crawl(
      cwd,
      web.map((s) => `${s.origin}/`),
      ['--allow', '127.0.0.0/8', '--agents', '2', '--concurrency', '2'],
    );
    expect(run.summary).toMatchObject({ stoppedBy: 'done', agents: 2, pages: 8 * 4, errors: 0 });
    expect(run.err).toMatch(/with 2 agent processes/);
    for (const site of web) {
      expect(site.maxOpen, site.origin).toBe(1);
      for (const path of ['/robots.txt', '/', '/a', '/b', '/c'])
        expect(site.requests.get(path), `${site.origin}${path}`).toBe(1);
    }
    // Each agent wrote its own WARC files (<out>/warc/crawl/<day>/<agent>/<run>/…).
    const files = warcFilesUnder(join(cwd, 'out', 'warc'));
    expect(files.length).toBe(run.summary.warcFiles);
    const agents = new Set(files.map((f) => f.split(sep).at(-3)));
    expect(agents.size).toBe(2);
  });

  it('fails, saying which, when an agent process dies before it drained', async () => {
    const web = await countingSites(4, 400);
    let cliPid = 0;
    const run = crawl(
      tempFolder('cwd'),
      web.map((s) => `${s.origin}/`),
      ['--allow', '127.0.0.0/8', '--agents', '2', '--duration', '60'],
      {},
      (cli) => (cliPid = cli.pid ?? 0),
    );
    // Once both agents run (the web sees requests), kill one.
    const deadline = Date.now() + 30_000;
    let agentPids: number[] = [];
    while (Date.now() < deadline) {
      await sleep(200);
      agentPids = childPids(cliPid);
      const seen = web.reduce((n, s) => n + [...s.requests.values()].reduce((a, b) => a + b, 0), 0);
      if (agentPids.length === 2 && seen > 2) break;
    }
    expect(agentPids).toHaveLength(2);
    process.kill(agentPids[0]!, 'SIGKILL');
    await expect(run).rejects.toThrow(
      /crawler exited 1: .*the crawl stopped: agent oneshot-[0-9a-f]+-[12] exited \(code null\) before it drained/s,
    );
  });
});

/** The child processes of `pid` (the CLI's agents). */
function childPids(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}
