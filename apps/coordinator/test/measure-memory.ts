// `npx tsx apps/coordinator/test/measure-memory.ts [--seconds 30] [--hosts 300] [--bulk 100000]`
//
// Bytes per URL / page of every structure issue 13 bounded, measured on the machine's Redis
// (MEMORY USAGE … SAMPLES 0 of every key, under a throw-away prefix) and V8 heap:
// 1. a real crawl of the synthetic web (coordinator, one agent, ingest) for --seconds: what the
//    `pages.parsed` feed, robots.txt entries and the dedupe / re-crawl structures hold per page;
// 2. the same structures filled in bulk (--bulk entries) with realistic values, so Redis uses its
//    large encodings (hashtable, skiplist) as it does at scale;
// 3. the compiled robots.txt rules' heap per rule against `RobotsRules.approxBytes`.
// Prints progress on stderr and, last, one JSON line with the figures (docs/BENCHMARKS.md).
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ContentIndex } from '@crawler/crawl-core';
import { Frontier } from '@crawler/frontier';
import { pagesStreamKey } from '@crawler/domain/messages';
import {
  connectRedis,
  deleteKeysWithPrefix,
  scanKeys,
  type RedisClient,
} from '@crawler/adapters/redis';
import { parseRobots } from '@crawler/domain/robots';
import { uniquePrefix } from '@crawler/testing';
import { fleetRobotsTxt, startSyntheticWeb } from '@crawler/synthetic-web';
import { NearDupIndex } from '../src/dedupe/near-dup-index';
import { RecrawlStore, type ObservedRow } from '../src/recrawl/recrawl-store';
import { startCrawlStack } from './crawl-stack';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    hosts: { type: 'string', default: '300' },
    bulk: { type: 'string', default: '100000' },
  },
});
const SECONDS = Number(values.seconds);
const HOSTS = Number(values.hosts);
const BULK = Number(values.bulk);
const say = (line: string) => console.error(line);
const round = (n: number) => Math.round(n);

/** Sum of MEMORY USAGE (exact) over the keys matching `pattern`. */
async function usage(
  redis: RedisClient,
  pattern: string,
): Promise<{ keys: number; bytes: number }> {
  const keys: string[] = [];
  await scanKeys(redis, pattern, (found) => void keys.push(...found));
  let bytes = 0;
  for (const key of keys) bytes += Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
  return { keys: keys.length, bytes };
}

async function total(redis: RedisClient, pattern: string, count: (k: string) => Promise<number>) {
  const keys: string[] = [];
  await scanKeys(redis, pattern, (found) => void keys.push(...found));
  let n = 0;
  for (const key of keys) n += await count(key);
  return n;
}

/** Part 1: a real crawl, then what each structure holds per page. */
async function measureCrawl(): Promise<Record<string, number>> {
  const web = await startSyntheticWeb({ seed: 1, hosts: HOSTS, hostile: false });
  const stack = await startCrawlStack(web, { CRAWLER_DEFAULT_GAP_MS: '200' }, ['measure-agent']);
  const p = stack.env.config.REDIS_PREFIX;
  const redis = stack.redis;
  try {
    const res = await fetch(`${stack.coordinator.url}/v1/seeds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...stack.env.auth },
      body: JSON.stringify({ urls: web.seeds }),
    });
    if (res.status !== 200) throw new Error(`seeding failed: ${res.status}`);
    stack.agents[0]!.start();
    say(`crawling ${HOSTS} hosts for ${SECONDS} s …`);
    await sleep(SECONDS * 1000);
    await stack.agents[0]!.stop();
    await stack.coordinator.ingest.settle();
    await sleep(2000); // the pages ingest (near duplicates) runs on its own loop

    let feedEntries = 0;
    let feedBytes = 0;
    for (let n = 0; n < stack.env.config.FEED_PARTITIONS; n++) {
      const key = pagesStreamKey(p, n);
      feedEntries += await redis.xlen(key);
      feedBytes += Number((await redis.memory('USAGE', key, 'SAMPLES', '0')) ?? 0);
    }
    const content = await usage(redis, `${p}:content:*`);
    const bodies = await total(redis, `${p}:content:*`, async (k) =>
      (await redis.type(k)) === 'hash' ? redis.hlen(k) : 0,
    );
    const bands = await usage(redis, `${p}:simband:*`);
    const members = await total(redis, `${p}:simband:*`, (k) => redis.llen(k));
    const robots = await usage(redis, `${p}:*robots:*`);
    const recrawl = (await usage(redis, `${p}:*rc:*`)).bytes;
    const scheduled = await total(redis, `${p}:*rc:due`, (k) => redis.zcard(k));
    const out = {
      crawl_pages: feedEntries,
      feed_bytes_per_page: round(feedBytes / Math.max(1, feedEntries)),
      content_bodies: bodies,
      content_bytes_per_body_small_crawl: round(content.bytes / Math.max(1, bodies)),
      near_dup_bucket_bytes_per_membership_small_crawl: round(bands.bytes / Math.max(1, members)),
      robots_origins: robots.keys,
      robots_redis_bytes_per_origin: round(robots.bytes / Math.max(1, robots.keys)),
      recrawl_urls: scheduled,
      recrawl_bytes_per_url_small_crawl: round(recrawl / Math.max(1, scheduled)),
    };
    say(`crawl: ${JSON.stringify(out)}`);
    return out;
  } finally {
    await stack.stop();
    await web.close();
  }
}

/** Part 2: the Redis structures filled in bulk, at the encodings they use at scale. */
async function measureBulk(): Promise<Record<string, number>> {
  const redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = uniquePrefix('measure');
  try {
    // Exact-duplicate index: one field per distinct body.
    const content = new ContentIndex(redis, prefix, 2 * BULK + 1024); // no rotation here
    for (let from = 0; from < BULK; from += 1000) {
      await Promise.all(
        Array.from({ length: Math.min(1000, BULK - from) }, (_, k) => {
          const i = from + k;
          return content.remember(randomBytes(32).toString('hex'), {
            recordId: `<urn:uuid:${randomUUID()}>`,
            capturedAt: 1_764_000_000_000 + i,
            payloadDigest: `sha1:${randomBytes(20).toString('base64url').toUpperCase().slice(0, 32)}`,
            url: `https://www${i % 977}.example.com/news/2026/12/article-${i}.html`,
            warcKey: `crawl/2026-12-01/agent-1/120000-4242/${String(i % 50).padStart(5, '0')}.warc.gz`,
            warcOffset: i * 9000,
            warcLength: 8123,
          });
        }),
      );
    }
    const contentBytes = (await usage(redis, `${prefix}:content:*`)).bytes;
    say(`content index: ${BULK} bodies`);

    // Re-crawl schedule: 64 shards (the default), one capture per URL.
    const frontier = new Frontier(redis, { prefix, shards: 64 });
    const recrawl = new RecrawlStore(
      redis,
      frontier,
      { minMs: 3_600_000, maxMs: 5_184_000_000, initialMs: 86_400_000 },
      0,
    );
    for (let from = 0; from < BULK; from += 2000) {
      const rows: ObservedRow[] = Array.from({ length: Math.min(2000, BULK - from) }, (_, k) => {
        const i = from + k;
        const host = `www${i % 977}.example.com`;
        return {
          url_fp: randomBytes(8).toString('hex'),
          url: `https://${host}/news/2026/12/article-${i}.html`,
          host,
          depth: 2,
          status: 200,
          fetched_at: new Date(1_764_000_000_000 + i),
          change: 'new',
          record_type: 'response',
          etag: `"${randomBytes(10).toString('hex')}"`,
          last_modified: 'Mon, 30 Nov 2026 12:00:00 GMT',
          record_id: `<urn:uuid:${randomUUID()}>`,
          payload_digest: `sha1:${randomBytes(20).toString('base64url').toUpperCase().slice(0, 32)}`,
          content_hash: randomBytes(32).toString('hex'),
        };
      });
      await recrawl.observe(rows);
    }
    const recrawlBytes = (await usage(redis, `${prefix}:*rc:*`)).bytes;
    say(`re-crawl schedule: ${BULK} URLs`);

    // Near-duplicate index: distinct pages (4 bucket memberships each), then near copies.
    const pages = Math.min(BULK, 40_000);
    const near = new NearDupIndex(redis, prefix, 3, { bucketSize: 1024, maxRecords: 4 * BULK });
    const page = (i: number, simhash: string) => ({
      url_fp: randomBytes(8).toString('hex'),
      url: `https://www${i % 977}.example.com/news/2026/12/article-${i}.html`,
      simhash,
    });
    const simhashes = Array.from({ length: pages }, () => randomBytes(8).toString('hex'));
    for (let from = 0; from < pages; from += 500)
      await near.check(simhashes.slice(from, from + 500).map((s, k) => page(from + k, s)));
    const bands = await usage(redis, `${prefix}:simband:*`);
    const members = await total(redis, `${prefix}:simband:*`, (k) => redis.llen(k));
    const copies = Math.min(pages, 20_000);
    for (let from = 0; from < copies; from += 500)
      await near.checkAndRecord(
        simhashes.slice(from, from + 500).map((s, k) => {
          const flipped = (BigInt(`0x${s}`) ^ 1n).toString(16).padStart(16, '0');
          return page(1_000_000 + from + k, flipped);
        }),
      );
    // Full buckets: 16 pages sharing their first band in each of 500 buckets.
    const full = new NearDupIndex(redis, `${prefix}:full`, 3, { bucketSize: 16, maxRecords: 1024 });
    for (let b = 0; b < 500; b++)
      await full.check(
        Array.from({ length: 16 }, (_, k) =>
          page(b * 16 + k, `${b.toString(16).padStart(4, '0')}${randomBytes(6).toString('hex')}`),
        ),
      );
    let fullBytes = 0;
    for (let b = 0; b < 500; b++) {
      const key = `${prefix}:full:simband:{0:${b.toString(16).padStart(4, '0')}}`;
      fullBytes += Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
    }
    const records = await usage(redis, `${prefix}:near-dup:*`);
    const recordCount = await total(redis, `${prefix}:near-dup:*`, async (k) =>
      (await redis.type(k)) === 'hash' ? redis.hlen(k) : 0,
    );
    say(`near-dup index: ${pages} pages, ${recordCount} verdicts`);
    return {
      bulk: BULK,
      content_bytes_per_body: round(contentBytes / BULK),
      recrawl_bytes_per_url: round(recrawlBytes / BULK),
      near_dup_bytes_per_page: round((4 * bands.bytes) / members),
      near_dup_bytes_per_full_bucket_of_16: round(fullBytes / 500),
      near_dup_bytes_per_record: round(records.bytes / Math.max(1, recordCount)),
    };
  } finally {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  }
}

/** Part 3: compiled robots.txt rules, heap per origin against the cache's estimate. */
function measureRobots(): Record<string, number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const out: Record<string, number> = {};
  for (const [rules, n] of [
    [10, 2000],
    [1000, 100],
    [17_000, 8],
  ] as const) {
    const kept: ReturnType<typeof parseRobots>[] = [];
    let ms = 0;
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < n; i++) {
      // Each body is garbage once parsed: the rules must not keep their source alive.
      const body = fleetRobotsTxt(0, rules).replace('hostile fleet', `origin ${i}`);
      const t0 = performance.now();
      kept.push(parseRobots(body, `http://o${i}.test/robots.txt`, 'x'));
      ms += performance.now() - t0;
    }
    gc();
    gc();
    const heap = (process.memoryUsage().heapUsed - before) / n;
    const estimate = kept.reduce((a, r) => a + r.approxBytes, 0) / n;
    out[`robots_${rules}_rules_heap_bytes`] = round(heap);
    out[`robots_${rules}_rules_estimate_bytes`] = round(estimate);
    out[`robots_${rules}_rules_parse_ms`] = Number((ms / n).toFixed(2));
  }
  return out;
}

const load = loadavg()[0]!;
say(`load average ${load.toFixed(2)}`);
const robots = measureRobots();
const bulk = await measureBulk();
const crawl = await measureCrawl();
console.log(
  JSON.stringify({
    bench: 'memory',
    date: new Date().toISOString(),
    load_avg_1m: Number(load.toFixed(2)),
    ...crawl,
    ...bulk,
    ...robots,
  }),
);
process.exit(0);
