import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CrawlAgent } from '@crawler/agent';
import { openFrontier } from '@crawler/frontier';
import { openAnalytics } from '@crawler/shared/analytics';
import type { Config } from '@crawler/shared/config';
import type { Logger } from '@crawler/shared/log';

import { connectRedis, deleteKeysWithPrefix } from '@crawler/shared/redis';
import { hostOf, normalizeUrl, urlFingerprint } from '@crawler/shared/url';
import { TelemetryIngest } from '../telemetry/ingest-telemetry';

export interface OneShotOptions {
  seeds: string[];
  /** Stop after this many seconds at the latest. */
  durationS: number;
  /** Stop after this many fetches (0 = no limit). */
  maxPages: number;
  /** Folder for WARC files, ClickHouse data and summary.json. */
  outDir: string;
  /** Called every ~2 s with progress. */
  onProgress?: (p: Progress) => void;
  /** Keep the Redis keys (default: deleted at the end). */
  keepRedisKeys?: boolean;
}

export interface Progress {
  elapsedS: number;
  pages: number;
  pagesPerS: number;
  queued: number;
  hosts: number;
  errors: number;
}

export interface OneShotSummary {
  pages: number;
  errors: number;
  bytes: number;
  robotsDenied: number;
  seconds: number;
  pagesPerS: number;
  rejectedSeeds: Array<{ url: string; reason: string }>;
  stoppedBy: 'done' | 'duration' | 'max_pages' | 'signal';
  warcDir: string;
  analyticsRows: number;
  deadLetters: number;
}

/**
 * A crawl from the terminal, as users of wget or Scrapy expect: a frontier of its own in Redis
 * (a fresh key prefix, removed at the end), one agent in this process, telemetry into an
 * embedded ClickHouse under the output folder. Ends when the frontier is idle, the time or page
 * budget is spent, or `signal` aborts; in-flight fetches always finish and the WARC closes.
 */
export async function oneShotCrawl(
  config: Config,
  log: Logger,
  opts: OneShotOptions,
  signal?: AbortSignal,
): Promise<OneShotSummary> {
  mkdirSync(opts.outDir, { recursive: true });
  const redis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
  const ingestRedis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
  const analytics = await openAnalytics({ path: join(opts.outDir, 'clickhouse') });
  await analytics.migrate();
  const frontier = await openFrontier(config, redis);
  const rejectedSeeds: OneShotSummary['rejectedSeeds'] = [];
  const entries = [];
  for (const raw of opts.seeds) {
    const n = normalizeUrl(raw.trim());
    if (!n.ok) rejectedSeeds.push({ url: raw, reason: `${n.reason}: ${n.detail}` });
    else
      entries.push({
        url: n.url,
        urlFp: urlFingerprint(n.url),
        host: hostOf(n.url),
        depth: 0,
        source: 'seed' as const,
      });
  }
  await frontier.enqueue(entries);

  const ingest = new TelemetryIngest(ingestRedis, analytics, config.REDIS_PREFIX, 'one-shot', log);
  await ingest.start();
  const warcDir = join(opts.outDir, 'warc');
  const agent = await CrawlAgent.create(config, redis, log, { warcDir });
  const started = performance.now();
  agent.start();

  let stoppedBy: OneShotSummary['stoppedBy'] = 'done';
  let lastPages = 0;
  let lastT = started;
  let ticks = 0;
  for (;;) {
    await sleep(250);
    const elapsed = (performance.now() - started) / 1000;
    if (signal?.aborted) stoppedBy = 'signal';
    else if (elapsed >= opts.durationS) stoppedBy = 'duration';
    else if (opts.maxPages > 0 && agent.counters.fetched >= opts.maxPages) stoppedBy = 'max_pages';
    else if (agent.activeLeases === 0 && (await frontier.isIdle())) stoppedBy = 'done';
    else {
      if (++ticks % 8 === 0 && opts.onProgress) {
        const s = await frontier.stats();
        const now = performance.now();
        const pages = agent.counters.fetched;
        opts.onProgress({
          elapsedS: elapsed,
          pages,
          pagesPerS: ((pages - lastPages) * 1000) / (now - lastT),
          queued: s.queuedUrls,
          hosts: s.hosts,
          errors: agent.counters.errors,
        });
        lastPages = pages;
        lastT = now;
      }
      continue;
    }
    break;
  }
  await agent.stop();
  const seconds = (performance.now() - started) / 1000;
  await ingest.stop();
  await ingest.drain();
  const deadLetters = (await frontier.stats()).deadLetters;
  const c = agent.counters;
  const summary: OneShotSummary = {
    pages: c.fetched,
    errors: c.errors,
    bytes: c.bytes,
    robotsDenied: c.robotsDenied,
    seconds,
    pagesPerS: c.fetched / Math.max(seconds, 0.001),
    rejectedSeeds,
    stoppedBy,
    warcDir,
    analyticsRows: ingest.ingested,
    deadLetters,
  };
  if (!opts.keepRedisKeys) await deleteKeysWithPrefix(redis, config.REDIS_PREFIX);
  await analytics.close();
  ingestRedis.disconnect();
  await redis.quit();
  return summary;
}
