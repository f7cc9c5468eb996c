/**
 * Benchmark: `npx tsx apps/coordinator/src/frontier-rebuild/bench-rebuild.ts [urls]` fills a
 * temp embedded ClickHouse with `urls` fetched URLs (default 200,000; two captures each, one in
 * 50 a 503), a parsed page for half of them with 20 links each (half to fetched URLs, half new),
 * and a temp Postgres database with 1,000 seeds; then rebuilds the frontier under a fresh key
 * prefix of the machine's Redis twice (the second run finds everything in place) and prints JSON:
 * each run's report and time. Everything it made is removed at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFrontier } from '@crawler/frontier';
import { openAnalytics, type FetchRow, type PageRow } from '@crawler/analytics';
import { loadConfig } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import { benchEnv } from '@crawler/testing';
import { urlFingerprint } from '@crawler/domain/url';
import { dropDatabase, migrate } from '../db/migrate';
import { createDb } from '../db/prisma';
import { Store } from '../db/store';
import { rebuildFrontier } from './rebuild-frontier';

const HOSTS = 2000;
const urlOf = (i: number) => `https://host${i % HOSTS}.example.com/a/${i}.html`;

function fetchRows(from: number, to: number, t0: number): FetchRow[] {
  const out: FetchRow[] = [];
  for (let i = from; i < to; i++) {
    const url = urlOf(i);
    for (const visit of [0, 1]) {
      const failed = visit === 1 && i % 50 === 0;
      out.push({
        url_fp: urlFingerprint(url),
        url,
        host: `host${i % HOSTS}.example.com`,
        fetched_at: new Date(t0 + visit * 86_400_000 + i),
        status: failed ? 503 : 200,
        error_code: '',
        bytes: 10_000,
        fetch_ms: 80,
        content_type: 'text/html',
        content_hash: failed ? '' : (i + visit * (i % 3)).toString(16).padStart(64, '0'),
        depth: 1 + (i % 5),
        agent_id: 'bench',
        warc_key: failed ? '' : 'crawl/bench.warc.gz',
        warc_offset: i * 1000,
        warc_length: 1000,
        redirect_to: '',
        record_type: failed ? '' : 'response',
        record_id: failed ? '' : `<urn:uuid:${i}-${visit}>`,
        payload_digest: failed ? '' : 'sha1:AAAA',
        etag: `"${i}-${visit}"`,
        change: failed ? '' : visit === 0 ? 'new' : i % 3 === 0 ? 'unchanged' : 'changed',
      });
    }
  }
  return out;
}

function pageRows(from: number, to: number, urls: number, t0: number): PageRow[] {
  const out: PageRow[] = [];
  for (let i = from; i < to; i += 2) {
    const links = Array.from({ length: 20 }, (_, k) =>
      k % 2 === 0 ? urlOf((i * 7 + k) % urls) : urlOf(urls + i * 10 + k),
    );
    out.push({
      url_fp: urlFingerprint(urlOf(i)),
      url: urlOf(i),
      host: `host${i % HOSTS}.example.com`,
      fetched_at: new Date(t0 + i),
      status: 200,
      content_type: 'text/html',
      charset: 'utf-8',
      title: '',
      description: '',
      lang: 'en',
      text: '',
      text_ref: '',
      text_bytes: 0,
      canonical: '',
      noindex: false,
      nofollow: false,
      out_links: links,
      out_links_nofollow: links.map(() => false),
      simhash: i.toString(16).padStart(16, '0'),
      content_hash: i.toString(16).padStart(64, '0'),
      change: 'new',
      warc_key: '',
      warc_offset: 0,
      warc_length: 0,
      record_id: '',
      depth: 1 + (i % 5),
      agent_id: 'bench',
    });
  }
  return out;
}

async function main(): Promise<void> {
  const urls = Number(process.argv[2] ?? 200_000);
  const dir = await mkdtemp(join(tmpdir(), 'rebuild-bench-'));
  const config = loadConfig(benchEnv('rebuild', dir));
  const redis = await connectRedis(config.REDIS_URL);
  const analytics = await openAnalytics({ path: join(dir, 'clickhouse') });
  await migrate(config.DATABASE_URL);
  const store = new Store(createDb(config.DATABASE_URL));
  try {
    await analytics.migrate();
    const t0 = Date.now() - 3 * 86_400_000;
    for (let o = 0; o < urls; o += 50_000) {
      const to = Math.min(urls, o + 50_000);
      await analytics.insertFetches(fetchRows(o, to, t0));
      await analytics.insertPages(pageRows(o, to, urls, t0));
    }
    await store.seeds.insertMany(
      Array.from({ length: 1000 }, (_, i) => ({
        url: urlOf(i * 3),
        urlFp: urlFingerprint(urlOf(i * 3)),
        host: `host${(i * 3) % HOSTS}.example.com`,
        priority: 1,
        source: 'bench',
      })),
    );
    const frontier = await openFrontier(config, redis);
    const deps = {
      config,
      log: createLogger('bench', process.env.LOG_LEVEL ?? 'warn'),
      redis,
      frontier,
      analytics,
      store,
    };
    const runs = [];
    for (let r = 0; r < 2; r++) {
      const started = performance.now();
      const report = await rebuildFrontier(deps, 'manual');
      runs.push({ ms: Math.round(performance.now() - started), report });
    }
    console.log(JSON.stringify({ urls, fetch_rows: urls * 2, pages: urls / 2, runs }));
  } finally {
    await deleteKeysWithPrefix(redis, config.REDIS_PREFIX);
    redis.disconnect();
    await store.disconnect();
    await analytics.close();
    await dropDatabase(config.DATABASE_URL);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
