import { mkdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADDRESS_REFUSALS, type AgentCounters } from '@crawler/crawl-core';
import { openFrontier, type Frontier } from '@crawler/frontier';
import { openAnalytics } from '@crawler/analytics';
import type { Config } from '@crawler/domain/config';
import type { Logger } from '@crawler/adapters/log';
import { SHIPPED_SUFFIX } from '@crawler/adapters/storage';

import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import { frontierEntry } from '@crawler/domain/url';
import { TelemetryIngest } from '../telemetry/ingest-telemetry';
import { OneShotAgents } from './one-shot-agents';

export interface OneShotOptions {
  seeds: string[];
  /** Stop after this many seconds at the latest. */
  durationS: number;
  /** Stop after this many fetches (0 = no limit). */
  maxPages: number;
  /**
   * Folder for WARC files, ClickHouse data and summary.json: the crawl's DATA_DIR, so nothing is
   * written outside it (WARC files go elsewhere only when S3_BUCKET is configured).
   */
  outDir: string;
  /** Called every ~2 s with progress. */
  onProgress?: (p: Progress) => void;
  /** Keep the Redis keys (default: deleted at the end). */
  keepRedisKeys?: boolean;
  /** Agent processes (default 1): one per core uses the machine, politeness stays the frontier's. */
  agents?: number;
  /** Called with the agents' process ids once they run (a bench measures them). */
  onAgents?: (pids: number[]) => void;
}

export interface Progress {
  elapsedS: number;
  pages: number;
  pagesPerS: number;
  queued: number;
  hosts: number;
  errors: number;
  refused: Refusals;
}

/** URLs the crawl did not fetch, and will not, by why. */
export interface Refusals {
  /** Disallowed by their site's robots.txt. */
  robots: number;
  /**
   * Their host's address is one the network guard refuses (loopback, private, link-local,
   * metadata… unless CRAWLER_NETWORK_ALLOW / --allow names it).
   */
  network: number;
  /** Discovered links kept out by the trap rules (URL length, path depth, repeats, --depth). */
  trap: number;
  /** Left queued on hosts whose daily page budget (HOST_DAILY_BUDGET) is spent. */
  budget: number;
}

export interface OneShotSummary {
  pages: number;
  errors: number;
  bytes: number;
  robotsDenied: number;
  refused: Refusals;
  seconds: number;
  pagesPerS: number;
  rejectedSeeds: Array<{ url: string; reason: string }>;
  stoppedBy: 'done' | 'duration' | 'max_pages' | 'signal';
  /** Agent processes that crawled. */
  agents: number;
  /**
   * Each agent's event-loop utilization over the crawl (0–1): near 1, the agents were short of
   * CPU (more cores, or `--agents`, would crawl faster).
   */
  agentEventLoopUtilization: number[];
  /**
   * The folder holding this crawl's `.warc.gz` files (`<out>/warc/crawl/<day>/<agent>/<run>`),
   * or `s3://<bucket>/<that key prefix>/` when they were shipped to S3 and not kept locally.
   */
  warcDir: string;
  /** WARC files this crawl wrote. */
  warcFiles: number;
  analyticsRows: number;
  deadLetters: number;
}

/**
 * A crawl from the terminal, as users of wget or Scrapy expect: a frontier of its own in Redis
 * (a fresh key prefix, removed at the end), `agents` agent processes, telemetry into an
 * embedded ClickHouse under the output folder. The output folder is the crawl's DATA_DIR: WARC
 * files are written (and stay) under `<out>/warc`, unless S3 is configured. Ends when nothing
 * fetchable is left (no lease open, no host waiting but for its daily budget), the time or page
 * budget is spent, or `signal` aborts; in-flight fetches always finish and the WARC closes.
 */
export async function oneShotCrawl(
  config: Config,
  log: Logger,
  opts: OneShotOptions,
  signal?: AbortSignal,
): Promise<OneShotSummary> {
  const outDir = resolve(opts.outDir);
  mkdirSync(outDir, { recursive: true });
  // The agent's local object store is DATA_DIR/warc, the folder it writes WARC files to: they
  // stay there (a file is its own object), and the feed's staging folder is DATA_DIR/tmp.
  // Its frontier is deleted at the end anyway: a Redis that persists nothing is fine for it.
  const crawlConfig: Config = { ...config, DATA_DIR: outDir, REDIS_VOLATILE_OK: true };
  const warcRoot = join(outDir, 'warc');
  const redis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
  const ingestRedis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
  const analytics = await openAnalytics({ path: join(outDir, 'clickhouse') });
  await analytics.migrate();
  const frontier = await openFrontier(config, redis);
  const rejectedSeeds: OneShotSummary['rejectedSeeds'] = [];
  const entries = [];
  for (const raw of opts.seeds) {
    const n = frontierEntry(raw.trim());
    if (!n.ok) rejectedSeeds.push({ url: raw, reason: `${n.reason}: ${n.detail}` });
    else entries.push({ ...n.entry, depth: 0, source: 'seed' as const });
  }
  await frontier.enqueue(entries);

  const ingest = new TelemetryIngest(ingestRedis, analytics, config.REDIS_PREFIX, 'one-shot', log);
  await ingest.start();
  /** Closes the crawl's connections and stores; its frontier goes unless kept. */
  const close = async () => {
    if (!opts.keepRedisKeys) await deleteKeysWithPrefix(redis, config.REDIS_PREFIX);
    await analytics.close();
    ingestRedis.disconnect();
    await redis.quit();
  };
  const earlierWarc = await listWarcFiles(warcRoot);
  const agentCount = opts.agents ?? 1;
  const agents = await OneShotAgents.start(crawlConfig, agentCount, warcRoot, log).catch(
    async (err: unknown) => {
      await ingest.stop();
      await close();
      throw err;
    },
  );
  opts.onAgents?.(agents.pids);
  const started = performance.now();

  let stoppedBy: OneShotSummary['stoppedBy'] = 'done';
  let lastPages = 0;
  let lastT = started;
  let ticks = 0;
  for (;;) {
    await sleep(250);
    const elapsed = (performance.now() - started) / 1000;
    if (signal?.aborted) stoppedBy = 'signal';
    else if (agents.failed) break;
    else if (elapsed >= opts.durationS) stoppedBy = 'duration';
    else if (opts.maxPages > 0 && agents.counters.fetched >= opts.maxPages) stoppedBy = 'max_pages';
    else if (agents.activeLeases === 0 && (await nothingFetchableLeft(frontier)))
      stoppedBy = 'done';
    else {
      if (++ticks % 8 === 0 && opts.onProgress) {
        const s = await frontier.stats();
        const refused = await refusals(agents.counters, frontier);
        const now = performance.now();
        const pages = agents.counters.fetched;
        opts.onProgress({
          elapsedS: elapsed,
          pages,
          pagesPerS: ((pages - lastPages) * 1000) / (now - lastT),
          queued: s.queuedUrls,
          hosts: s.hosts,
          errors: agents.counters.errors,
          refused,
        });
        lastPages = pages;
        lastT = now;
      }
      continue;
    }
    break;
  }
  await agents.stop();
  const seconds = (performance.now() - started) / 1000;
  await ingest.stop();
  await ingest.drain();
  if (agents.failed) {
    // What the agents wrote stays (WARC files, ClickHouse rows).
    await close();
    throw new Error(`the crawl stopped: ${agents.failed.message}`);
  }
  const deadLetters = (await frontier.stats()).deadLetters;
  const c = agents.counters;
  const refused = await refusals(c, frontier);
  const warc = whereWarcIs(warcRoot, earlierWarc, await listWarcFiles(warcRoot), crawlConfig);
  const summary: OneShotSummary = {
    pages: c.fetched,
    errors: c.errors,
    bytes: c.bytes,
    robotsDenied: c.robotsDenied,
    refused,
    seconds,
    pagesPerS: c.fetched / Math.max(seconds, 0.001),
    rejectedSeeds,
    stoppedBy,
    agents: agentCount,
    agentEventLoopUtilization: agents.eventLoopUtilization,
    warcDir: warc.dir,
    warcFiles: warc.files,
    analyticsRows: ingest.ingested,
    deadLetters,
  };
  await close();
  return summary;
}

/**
 * Nothing more can be fetched: no lease is open and every host still scheduled is waiting for
 * the next UTC day because its daily budget is spent. A URL that can never be fetched (refused
 * address, robots.txt that keeps failing, attempts used up) is a dead letter by then, not queued.
 */
async function nothingFetchableLeft(frontier: Frontier): Promise<boolean> {
  const s = await frontier.stats();
  if (s.openLeases > 0) return false;
  if (s.scheduledHosts === 0) return true;
  return (await frontier.budgetSpent()).hosts >= s.scheduledHosts;
}

async function refusals(c: AgentCounters, frontier: Frontier): Promise<Refusals> {
  const [dead, budget] = await Promise.all([
    frontier.deadLettersByReason(),
    frontier.budgetSpent(),
  ]);
  return {
    robots: c.robotsDenied,
    network: ADDRESS_REFUSALS.reduce((n, reason) => n + (dead[reason] ?? 0), c.addressRefused),
    trap: c.trapRefused,
    budget: budget.urls,
  };
}

/** "refused: network 2, robots 1" (the reasons that occurred), or "refused: none". */
export function formatRefusals(r: Refusals): string {
  const parts = Object.entries(r)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`);
  return `refused: ${parts.length > 0 ? parts.join(', ') : 'none'}`;
}

/**
 * WARC files under `root` by object key, and whether each is on disk (false: only its `.shipped`
 * marker is, the file went to S3).
 */
async function listWarcFiles(root: string): Promise<Map<string, boolean>> {
  const found = new Map<string, boolean>();
  let entries;
  try {
    entries = await readdir(root, { recursive: true, withFileTypes: true });
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return found;
    throw err;
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    const key = relative(root, join(e.parentPath, e.name)).split(sep).join('/');
    if (key.endsWith('.warc.gz')) found.set(key, true);
    else if (key.endsWith(`.warc.gz${SHIPPED_SUFFIX}`)) {
      const file = key.slice(0, -SHIPPED_SUFFIX.length);
      if (!found.has(file)) found.set(file, false);
    }
  }
  return found;
}

/**
 * Where this crawl's WARC files are: the folder (key prefix) of the files that were not there
 * before it, on disk, or in the S3 bucket when they were shipped there and removed locally.
 */
function whereWarcIs(
  root: string,
  before: ReadonlyMap<string, boolean>,
  after: ReadonlyMap<string, boolean>,
  config: Config,
): { dir: string; files: number } {
  const mine = [...after].filter(([key]) => !before.has(key));
  if (mine.length === 0) return { dir: root, files: 0 };
  // The longest folder every key shares (one run writes one folder).
  let folder = mine[0]![0].split('/').slice(0, -1);
  for (const [key] of mine) {
    const parts = key.split('/');
    let i = 0;
    while (i < folder.length && i < parts.length - 1 && folder[i] === parts[i]) i++;
    folder = folder.slice(0, i);
  }
  const onDisk = mine.every(([, local]) => local);
  const dir =
    onDisk || config.S3_BUCKET.trim() === ''
      ? join(root, ...folder)
      : `s3://${config.S3_BUCKET.trim()}/${folder.map((p) => `${p}/`).join('')}`;
  return { dir, files: mine.length };
}
