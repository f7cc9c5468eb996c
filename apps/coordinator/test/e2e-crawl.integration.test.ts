import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlAgent } from '@crawler/crawl-core';
import { readWarcFile } from '@crawler/adapters/warc';
import {
  canonicalizeUrl,
  scoreCrawl,
  startSyntheticWeb,
  type SyntheticWeb,
} from '@crawler/synthetic-web';
import type { Coordinator } from '../src/coordinator';
import { startCrawlStack, type CrawlStack } from './crawl-stack';
import type { TestEnv } from './test-env';

// The first crawl, end to end: a 50-host synthetic web crawled to completion by two agents
// through the real coordinator, Postgres, Redis and embedded ClickHouse, judged from the
// synthetic web's own request log.
const GAP_MS = 50;
let web: SyntheticWeb;
let stack: CrawlStack;
let env: TestEnv;
let coordinator: Coordinator;
let agents: CrawlAgent[] = [];

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 7, hosts: 50, maxPagesPerHost: 40 });
  stack = await startCrawlStack(
    web,
    {
      CRAWLER_DEFAULT_GAP_MS: String(GAP_MS),
      ROBOTS_RETRY_BASE_MS: '300',
      ROBOTS_MAX_FAILURES: '2',
      FETCH_TOTAL_TIMEOUT_MS: '4000',
      AGENT_MAX_HOSTS: '64',
      FRONTIER_BACKOFF_BASE_MS: '200',
      FRONTIER_BACKOFF_MAX_MS: '2000',
    },
    ['agent-a', 'agent-b'],
  );
  ({ env, coordinator, agents } = stack);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

describe('first crawl, end to end', () => {
  it('accepts valid seeds and names each invalid one with HTTP 400', async () => {
    const urls = [...web.seeds, 'not a url', 'ftp://files.example/x', 'http://'];
    const res = await fetch(`${coordinator.url}/v1/seeds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...env.auth },
      body: JSON.stringify({ urls }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      valid: number;
      enqueued: number;
      rejected: Array<{ index: number; url: string; reason: string }>;
    };
    expect(body.valid).toBe(web.seeds.length);
    expect(body.enqueued).toBe(web.seeds.length);
    expect(body.rejected.map((r) => r.index)).toEqual([50, 51, 52]);
    expect(body.rejected.every((r) => r.reason.length > 0)).toBe(true);
  });

  it('crawls to completion with zero politeness and robots violations and no duplicate fetch', async () => {
    for (const a of agents) a.start();
    const frontier = coordinator.services.frontier;
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline) {
      await sleep(500);
      if (agents.every((a) => a.activeLeases === 0) && (await frontier.isIdle())) break;
    }
    expect(await frontier.isIdle()).toBe(true);
    await Promise.all(agents.map((a) => a.stop()));

    const report = scoreCrawl({
      log: web.log(),
      manifest: web.manifest(),
      productToken: env.config.CRAWLER_UA_TOKEN,
      minGapMs: GAP_MS,
    });
    expect(report.violations).toEqual([]);
    expect(report.politeness_violations).toBe(0);
    expect(report.robots_violations).toBe(0);
    expect(report.duplicate_fetches).toBe(0);
    expect(report.coverage, `missing: ${report.missing.join(' ')}`).toBeGreaterThanOrEqual(0.99);
  }, 180_000);

  it('follows robots.txt Sitemap: lines and sitemap indexes (plain and gzipped)', () => {
    const requested = new Set(web.log().map((e) => canonicalizeUrl(e.url)));
    const sitemaps = web.manifest().sitemaps;
    expect(sitemaps.length).toBeGreaterThan(0);
    expect(sitemaps.filter((u) => !requested.has(canonicalizeUrl(u)))).toEqual([]);
  });

  it('stores every fetched page as a WARC response or revisit record that its ClickHouse row points at', async () => {
    await coordinator.ingest.settle();
    const warcRoot = join(env.dataDir, 'warc');
    const files = readdirSync(warcRoot, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.warc.gz'),
    );
    expect(files.length).toBeGreaterThan(0);
    const responses = new Map<string, string>(); // "key@offset" -> target URI
    for (const f of files) {
      for await (const rec of readWarcFile(join(warcRoot, f))) {
        expect(rec.digestsOk, `${f}@${rec.offset}`).toBe(true);
        // Exact duplicates (e.g. the same robots.txt on many hosts) are stored as revisits.
        if ((rec.type === 'response' || rec.type === 'revisit') && rec.targetUri)
          responses.set(`${f}@${rec.offset}`, rec.targetUri);
      }
    }
    type Row = {
      url: string;
      status: number;
      error_code: string;
      warc_key: string;
      warc_offset: string;
    };
    const rows = await coordinator.services.analytics.queryJson<Row>(
      'SELECT url, status, error_code, warc_key, toString(warc_offset) AS warc_offset FROM fetches FINAL',
    );
    // Every row with an HTTP answer points at the response record of its own URL.
    const answered = rows.filter((r) => r.status > 0);
    const badPointers = answered.filter(
      (r) => responses.get(`${r.warc_key}@${r.warc_offset}`) !== r.url,
    );
    expect(badPointers.map((r) => `${r.url} -> ${r.warc_key}@${r.warc_offset}`)).toEqual([]);
    // Every request the web answered is archived, or has a telemetry row saying why not.
    const archived = new Set(responses.values());
    const refused = new Set(
      rows.filter((r) => r.status === 0 && r.error_code !== '').map((r) => r.url),
    );
    const unaccounted = web
      .log()
      .filter((e) => !e.aborted && !archived.has(e.url) && !refused.has(e.url));
    expect(unaccounted.map((e) => e.url)).toEqual([]);
  });

  it('parks what kept failing as dead letters an operator can list and re-queue', async () => {
    const res = await fetch(`${coordinator.url}/v1/dead-letters?limit=500`, {
      headers: env.auth,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      items: Array<{ url: string; host: string; reason: string }>;
      total: number;
    };
    const reasons = new Set(body.items.map((d) => d.reason));
    // The host whose robots.txt answers 5xx is parked; a page that always answers 500 gives up.
    expect(reasons.has('robots_unavailable')).toBe(true);
    expect(body.items.some((d) => d.reason.startsWith('http_5'))).toBe(true);
    const host = body.items.find((d) => d.reason === 'robots_unavailable')!.host;
    // The host filter gives exactly that host's letters.
    const own = (await (
      await fetch(`${coordinator.url}/v1/dead-letters?limit=500&host=${host}`, {
        headers: env.auth,
      })
    ).json()) as { items: Array<{ url: string; host: string }>; next_cursor: string | null };
    expect(own.items.map((d) => d.url).sort()).toEqual(
      body.items
        .filter((d) => d.host === host)
        .map((d) => d.url)
        .sort(),
    );
    const rq = await fetch(`${coordinator.url}/v1/dead-letters/requeue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...env.auth },
      body: JSON.stringify({ host }),
    });
    const out = (await rq.json()) as { requeued: number };
    expect(out.requeued).toBe(body.items.filter((d) => d.host === host).length);
    const after = (await (
      await fetch(`${coordinator.url}/v1/hosts/${host}`, { headers: env.auth })
    ).json()) as {
      queue_length: number;
      parked: string | null;
    };
    expect(after.parked).toBeNull();
    expect(after.queue_length).toBe(out.requeued);
  });

  it('counts the crawl in GET /v1/stats from ClickHouse', async () => {
    await coordinator.ingest.settle();
    const stats = (await (
      await fetch(`${coordinator.url}/v1/stats`, { headers: env.auth })
    ).json()) as {
      fetches: { total: number };
      seeds: { total: number };
      frontier: { openLeases: number };
    };
    const requests = web.log().length;
    expect(stats.seeds.total).toBe(web.seeds.length);
    expect(stats.frontier.openLeases).toBe(0);
    // One telemetry row per request the web saw (plus robots-denied URLs it never saw).
    expect(stats.fetches.total).toBeGreaterThanOrEqual(requests);
  });
});
