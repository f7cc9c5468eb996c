import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnqueueUrl } from '@crawler/frontier';
import { hostOf, normalizeUrl, urlFingerprint } from '@crawler/domain/url';
import { readWarcRecordAt } from '@crawler/adapters/warc';
import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import { startCrawlStack, type CrawlStack } from './crawl-stack';
import { NearDupIndex } from '../src/dedupe/near-dup-index';

// Re-crawls and duplicates end to end: each capture schedules its URL (change model), the
// sweep sends due URLs back with the prior capture's validators, a 304 becomes a
// `server-not-modified` revisit referring to that capture, a changed page is stored again and
// detected as changed, intervals move as the model says, and a byte-identical copy of another
// page becomes an `identical-payload-digest` revisit. Every CDX row reads back to its record.
let web: SyntheticWeb;
let stack: CrawlStack;

type Row = {
  url: string;
  url_fp: string;
  status: number;
  error_code: string;
  /** Epoch ms (an alias named fetched_at would shadow the column in WHERE). */
  fetched_ms: string;
  depth: number;
  warc_key: string;
  warc_offset: string;
  warc_length: string;
  record_type: string;
  record_id: string;
  payload_digest: string;
  content_hash: string;
  etag: string;
  last_modified: string;
  change: string;
  duplicate_of: string;
};
const INITIAL_MS = 4000;
let first: Row[] = [];
let second: Row[] = [];

async function crawlToIdle(): Promise<void> {
  // Idle twice in a row: no host ready, scheduled or leased (blocked ones keep their queues), and
  // the agent at rest.
  let quiet = 0;
  const until = Date.now() + 60_000;
  while (quiet < 2 && Date.now() < until) {
    await sleep(250);
    const s = await stack.coordinator.services.frontier.stats();
    const idle =
      stack.agents[0]!.activeLeases === 0 && s.readyHosts + s.scheduledHosts + s.openLeases === 0;
    quiet = idle ? quiet + 1 : 0;
    if (process.env.DEBUG_RECAPTURE)
      console.log(Date.now(), JSON.stringify(s), stack.agents[0]!.activeLeases);
  }
  await stack.coordinator.ingest.settle();
}

async function rows(since: number): Promise<Row[]> {
  return stack.coordinator.services.analytics.queryJson<Row>(
    `SELECT url, url_fp, status, error_code, toUnixTimestamp64Milli(fetched_at) AS fetched_ms, depth,
            warc_key, toString(warc_offset) AS warc_offset, toString(warc_length) AS warc_length,
            record_type, record_id, payload_digest, content_hash, etag, last_modified, change,
            duplicate_of
     FROM fetches FINAL
     WHERE fetched_at >= fromUnixTimestamp64Milli(${since}) AND url NOT LIKE '%/robots.txt'`,
  );
}

/** Hosts with a feature, among those without a Crawl-delay (which would only slow the test). */
const withFeature = (f: string) =>
  web.hosts.filter((h) => h.features.includes(f) && h.crawlDelayS === null && h.robots !== '5xx');

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 5, hosts: 30, maxPagesPerHost: 12, hostile: false });
  stack = await startCrawlStack(
    web,
    {
      CRAWLER_DEFAULT_GAP_MS: '20',
      ROBOTS_RETRY_BASE_MS: '300',
      ROBOTS_MAX_FAILURES: '2',
      FRONTIER_BACKOFF_BASE_MS: '200',
      FRONTIER_BACKOFF_MAX_MS: '1000',
      // Seconds instead of days, and no background sweeps: the test sweeps when it wants.
      RECRAWL_INITIAL_INTERVAL_MS: String(INITIAL_MS),
      RECRAWL_MIN_INTERVAL_MS: '1000',
      RECRAWL_SWEEP_EVERY_MS: '0',
    },
    ['agent-recapture'],
  );
  const hosts = new Set(
    [...withFeature('changing'), ...withFeature('duplicates')].map((h) => h.host),
  );
  expect(withFeature('changing').length).toBeGreaterThan(0);
  expect(withFeature('duplicates').length).toBeGreaterThan(0);
  const seeds: EnqueueUrl[] = web.seeds
    .filter((s) => hosts.has(new URL(s).hostname))
    .map((s) => {
      const n = normalizeUrl(s);
      if (!n.ok) throw new Error(`bad seed ${s}`);
      return {
        url: n.url,
        urlFp: urlFingerprint(n.url),
        host: hostOf(n.url),
        depth: 0,
        source: 'seed',
      };
    });
  const frontier = stack.coordinator.services.frontier;
  // Only these hosts are crawled: links to the others land on blocked hosts and wait there.
  for (const h of web.hosts.filter((x) => !hosts.has(x.host)))
    await frontier.setHostPolicy(h.host, { gapMs: null, blocked: true });
  await frontier.enqueue(seeds);
  stack.agents[0]!.start();
  const t0 = Date.now() - 1000;
  await crawlToIdle();
  first = await rows(t0);

  // Every capture put its URL on the re-crawl schedule, due one initial interval later.
  const recrawl = stack.coordinator.services.recrawl;
  const scheduled = first.filter((r) => r.status === 200 && r.record_type !== '');
  expect(scheduled.length).toBeGreaterThan(3);
  if (process.env.DEBUG_RECAPTURE)
    console.log(
      'DBG',
      JSON.stringify(await stack.redis.keys(`${stack.env.config.REDIS_PREFIX}:*rc:*`)),
      stack.coordinator.ingest.ingested,
    );
  for (const r of scheduled.slice(0, 5))
    expect((await recrawl.state(hostOf(r.url), r.url_fp))?.intervalMs).toBe(INITIAL_MS);

  // Cycle 2: some pages of the `changing` host change. Once due, one sweep sends them all back.
  web.setCycle(2);
  const lastFetch = Math.max(...first.map((r) => Number(r.fetched_ms)));
  await sleep(Math.max(0, lastFetch + INITIAL_MS + 200 - Date.now()));
  const t1 = Date.now();
  const swept = await stack.coordinator.recrawlSweeper.sweep();
  expect(swept.due).toBe(new Set(scheduled.map((r) => r.url_fp)).size);
  await crawlToIdle();
  second = await rows(t1);
  expect(second.length).toBe(swept.due);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

const warcPath = (r: Row) => join(stack.env.dataDir, 'warc', r.warc_key);

describe('re-captures and duplicates', () => {
  it('answers unchanged pages with 304, archived as server-not-modified revisits of the prior capture', async () => {
    const m = web.manifest();
    const changed = new Set(m.changed);
    const pages = new Set(m.expected);
    const unchanged = second.filter((r) => pages.has(r.url) && !changed.has(r.url));
    expect(unchanged.length).toBeGreaterThan(0);
    const priorOf = new Map(first.map((r) => [r.url, r]));
    for (const r of unchanged) {
      expect([r.url, r.status, r.change, r.record_type]).toEqual([
        r.url,
        304,
        'unchanged',
        'revisit',
      ]);
      const rec = await readWarcRecordAt(warcPath(r), Number(r.warc_offset), Number(r.warc_length));
      expect(rec.type).toBe('revisit');
      expect(rec.targetUri).toBe(r.url);
      expect(rec.digestsOk).toBe(true);
      expect(rec.headers['WARC-Profile']).toBe(
        'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
      );
      expect(rec.headers['WARC-Refers-To']).toBe(priorOf.get(r.url)!.record_id);
    }
  });

  it('moves each interval as the model says: halved when changed, 1.5× when not', async () => {
    // Sitemaps too: their content changes with the pages' lastmod, and carries no validators.
    expect(second.some((r) => r.change === 'changed')).toBe(true);
    expect(second.some((r) => r.change === 'unchanged')).toBe(true);
    for (const r of second) {
      const state = await stack.coordinator.services.recrawl.state(hostOf(r.url), r.url_fp);
      const expected = r.change === 'changed' ? INITIAL_MS / 2 : INITIAL_MS * 1.5;
      expect([r.url, state?.intervalMs]).toEqual([r.url, expected]);
      expect(state!.dueAt).toBe(Number(r.fetched_ms) + expected);
    }
  });

  it('fetches changed pages in full and says they changed', async () => {
    const changed = new Set(web.manifest().changed);
    const fresh = second.filter((r) => changed.has(r.url));
    expect(fresh.length).toBeGreaterThan(0);
    // And only those: every other page is unchanged.
    const pages = new Set(web.manifest().expected);
    expect(
      second.filter((r) => pages.has(r.url) && !changed.has(r.url) && r.change !== 'unchanged'),
    ).toEqual([]);
    for (const r of fresh) {
      expect([r.url, r.status, r.change, r.record_type]).toEqual([
        r.url,
        200,
        'changed',
        'response',
      ]);
      const rec = await readWarcRecordAt(warcPath(r), Number(r.warc_offset), Number(r.warc_length));
      expect([rec.type, rec.targetUri, rec.digestsOk]).toEqual(['response', r.url, true]);
    }
  });

  it('stores a byte-identical copy of another page as an identical-payload-digest revisit of it', async () => {
    const copies = first.filter((r) => /copy-of-1\.html$/.test(r.url) && r.status === 200);
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const original = first.find(
        (r) => r !== copy && r.status === 200 && r.content_hash === copy.content_hash,
      );
      expect(original, copy.url).toBeDefined();
      // Whichever of the pair came first is stored in full; the other refers to it.
      const [full, dup] =
        Number(original!.fetched_ms) <= Number(copy.fetched_ms)
          ? [original!, copy]
          : [copy, original!];
      expect(full.record_type).toBe('response');
      expect([dup.record_type, dup.duplicate_of]).toEqual(['revisit', full.url]);
      const rec = await readWarcRecordAt(
        warcPath(dup),
        Number(dup.warc_offset),
        Number(dup.warc_length),
      );
      expect(rec.headers['WARC-Profile']).toBe(
        'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
      );
      expect(rec.headers['WARC-Refers-To']).toBe(full.record_id);
      expect(rec.headers['WARC-Refers-To-Target-URI']).toBe(full.url);
      expect(rec.headers['WARC-Payload-Digest']).toBe(full.payload_digest);
    }
  });

  it('records a near-duplicate page (one word differs) with the page it nearly copies', async () => {
    await stack.coordinator.pagesIngest.settle();
    const near = first.filter((r) => /near-of-1\.html$/.test(r.url) && r.status === 200);
    expect(near.length).toBeGreaterThan(0);
    const index = new NearDupIndex(
      stack.redis,
      stack.env.config.REDIS_PREFIX,
      stack.env.config.DEDUPE_NEAR_DISTANCE,
    );
    for (const r of near) {
      const origin = await index.originOf(r.url_fp);
      expect(origin?.originUrl, r.url).toMatch(/\/(copy-of-1\.html|[^/]*1[^/]*)$/);
      expect(origin!.distance).toBeLessThanOrEqual(3);
    }
  });

  it('points every CDX row at a record of its own URL, whose digests verify', async () => {
    for (const r of [...first, ...second].filter((x) => x.warc_key !== '')) {
      const rec = await readWarcRecordAt(warcPath(r), Number(r.warc_offset), Number(r.warc_length));
      expect([rec.targetUri, rec.type, rec.recordId, rec.digestsOk]).toEqual([
        r.url,
        r.record_type,
        r.record_id,
        true,
      ]);
    }
  });
});
