import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import { chromium, type Page } from 'playwright-core';
import { Coordinator } from '../../apps/coordinator/src/coordinator';
import { dropDatabase } from '../../apps/coordinator/src/db/migrate';
import { buildConsoleIfStale, startConsole } from '../../test/console/console-server';
import { fetchRows } from './console-rows';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const p95 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)] ?? 0;
};
const round = (x: number) => Math.round(x);

const LOADED = `document.querySelectorAll('.spinner').length === 0 &&
  document.querySelectorAll('.tile, table, .empty-state, .error-box, .chart, form, .notice').length > 0`;

/** Navigation until the page's data is shown: its heading is there and no loader is left. */
async function loadPage(page: Page, url: string): Promise<number> {
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.locator('main h1').first().waitFor({ timeout: 30_000 });
  // A string expression: this file is compiled without the DOM library.
  await page.waitForFunction(LOADED, null, { timeout: 30_000, polling: 10 });
  return performance.now() - t0;
}

/**
 * The console over a big ClickHouse: `rows` fetch rows (default 1M, over the last 24 h) are
 * inserted into a fresh embedded store of a real coordinator; the console is built (if stale)
 * and started; Chromium signs in and loads each page `runs` times (median ms, navigation until
 * its data is shown). The overview's API queries are timed against the coordinator directly.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      rows: { type: 'string', default: '1000000' },
      runs: { type: 'string', default: '5' },
      chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    },
  });
  const rows = Number(values.rows);
  const runs = Number(values.runs);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-console-'));
  const db = new URL(
    process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  );
  db.pathname = `/crawler_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = { email: 'admin@bench.local', password: randomBytes(12).toString('base64url') };
  const token = `crw_${randomBytes(24).toString('base64url')}`;
  const config = loadConfig({
    DATABASE_URL: db.toString(),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `bench-console-${randomBytes(4).toString('hex')}`,
    DATA_DIR: dataDir,
    COORDINATOR_PORT: '0',
    LOG_LEVEL: 'warn',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    ADMIN_TOKEN: token,
    REDIS_VOLATILE_OK: 'true',
  });
  console.error('building the console if needed');
  await buildConsoleIfStale();
  const coordinator = await Coordinator.start(config, createLogger('bench', 'warn'));
  const auth = { authorization: `Bearer ${token}` };
  let stopConsole = async () => {};
  let closeBrowser = async () => {};
  try {
    console.error(`inserting ${rows} fetch rows`);
    const now = Date.now();
    const t0 = performance.now();
    for (let o = 0; o < rows; o += 100_000)
      await coordinator.services.analytics.insertFetches(
        fetchRows(Math.min(100_000, rows - o), o, now, rows),
      );
    const insertS = (performance.now() - t0) / 1000;

    // The overview's queries, straight to the coordinator.
    const api: Record<string, { median_ms: number; p95_ms: number }> = {};
    for (const path of [
      '/v1/stats',
      ...['15m', '1h', '6h', '24h'].map((w) => `/v1/stats/series?window=${w}`),
    ]) {
      const ms: number[] = [];
      for (let k = 0; k < 3 + 10; k++) {
        const s = performance.now();
        const r = await fetch(`${coordinator.url}${path}`, { headers: auth });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
        if (k >= 3) ms.push(performance.now() - s);
      }
      api[path] = { median_ms: round(median(ms)), p95_ms: round(p95(ms)) };
    }

    const consoleServer = await startConsole(coordinator.url);
    stopConsole = () => consoleServer.stop();
    const browser = await chromium.launch({
      executablePath: values.chromium,
      args: ['--no-sandbox'],
    });
    closeBrowser = () => browser.close();
    const page = await (
      await browser.newContext({ viewport: { width: 1366, height: 800 } })
    ).newPage();
    await page.goto(`${consoleServer.url}/login`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${consoleServer.url}/`);

    const targets: Record<string, string> = {
      overview: '/',
      seeds: '/seeds',
      hosts: '/hosts',
      host: '/hosts/host1.example.com',
      url: `/urls?url=${encodeURIComponent('https://host1.example.com/section/1/article-1.html')}`,
      agents: '/agents',
      dead_letters: '/dead-letters',
      audit: '/audit',
      users: '/users',
      settings: '/settings',
    };
    const pages: Record<string, number> = {};
    for (const [name, path] of Object.entries(targets)) {
      await loadPage(page, `${consoleServer.url}${path}`); // warm-up
      const ms: number[] = [];
      for (let k = 0; k < runs; k++) ms.push(await loadPage(page, `${consoleServer.url}${path}`));
      pages[name] = round(median(ms));
    }
    const overviewMax = Math.max(...Object.values(api).map((a) => a.p95_ms));
    return {
      bench: 'console',
      rows,
      insert_rows_per_s: round(rows / insertS),
      api,
      overview_queries_p95_max_ms: overviewMax,
      overview_queries_under_500ms: overviewMax < 500,
      page_load_median_ms: pages,
      runs,
    };
  } finally {
    await closeBrowser().catch(() => undefined);
    await stopConsole().catch(() => undefined);
    await coordinator.stop();
    const redis = await connectRedis(config.REDIS_URL);
    await deleteKeysWithPrefix(redis, config.REDIS_PREFIX);
    redis.disconnect();
    await dropDatabase(config.DATABASE_URL);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
