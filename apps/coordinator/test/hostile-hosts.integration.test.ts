import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import { startCrawlStack, type CrawlStack } from './crawl-stack';

// The synthetic web's hostile hosts (a 20 MB page, a gzip bomb, a trickling server, huge
// headers, a slow server, malformed HTML, a redirect loop): each ends with its own outcome in
// telemetry, nothing crashes, and memory stays bounded.
let web: SyntheticWeb;
let stack: CrawlStack;
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

type Row = {
  host: string;
  url: string;
  status: number;
  error_code: string;
  fetch_ms: number;
  bytes: string;
};
let rows: Row[] = [];
const hostOfKind = (kind: string) => web.hosts.find((h) => h.kind === kind)!.host;
const rowsOf = (kind: string) => rows.filter((r) => r.host === hostOfKind(kind));

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 11, hosts: 50, maxPagesPerHost: 10, hostile: true });
  stack = await startCrawlStack(
    web,
    {
      CRAWLER_DEFAULT_GAP_MS: '50',
      FETCH_TOTAL_TIMEOUT_MS: '3000',
      FETCH_FIRST_BYTE_TIMEOUT_MS: '2500',
      // The trickle (2 bytes/s) is cut by the minimum speed well before the overall deadline.
      FETCH_MIN_SPEED_WINDOW_MS: '1500',
      FRONTIER_MAX_ATTEMPTS: '2',
      FRONTIER_BACKOFF_BASE_MS: '200',
      FRONTIER_BACKOFF_MAX_MS: '500',
      ROBOTS_RETRY_BASE_MS: '300',
      ROBOTS_MAX_FAILURES: '2',
      CRAWLER_MAX_DEPTH: '2',
    },
    ['agent-hostile'],
  );
  const hostile = new Set(web.hosts.filter((h) => h.kind !== 'normal').map((h) => h.host));
  const seeds = web.seeds.filter((s) => hostile.has(new URL(s).hostname));
  const res = await fetch(`${stack.coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ urls: seeds }),
  });
  expect(res.status).toBe(200);
  stack.agents[0]!.start();
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    await sleep(500);
    if (stack.agents[0]!.activeLeases === 0 && (await stack.coordinator.services.frontier.isIdle()))
      break;
  }
  await stack.agents[0]!.stop();
  await stack.coordinator.ingest.settle();
  rows = await stack.coordinator.services.analytics.queryJson<Row>(
    'SELECT host, url, status, error_code, fetch_ms, toString(bytes) AS bytes FROM fetches FINAL',
  );
}, 120_000);

afterAll(async () => {
  clearInterval(sampler);
  await stack?.stop();
  await web?.close();
});

describe('hostile hosts', () => {
  it('crawls them all to the end without crashing', async () => {
    expect(await stack.coordinator.services.frontier.isIdle()).toBe(true);
    for (const kind of [
      'huge-page',
      'gzip-bomb',
      'slow',
      'trickle',
      'huge-headers',
      'malformed',
      'redirect-loop',
    ]) {
      expect(rowsOf(kind).length, kind).toBeGreaterThan(0);
    }
  });

  it('stops the 20 MB page and the gzip bomb at the 10 MB decoded cap (too_large)', () => {
    for (const kind of ['huge-page', 'gzip-bomb']) {
      const capped = rowsOf(kind).filter((r) => r.error_code === 'too_large');
      expect(capped.length, kind).toBeGreaterThan(0);
      expect(capped.every((r) => Number(r.bytes) === 10 * 1024 * 1024)).toBe(true);
    }
  });

  it('ends a trickling response at the minimum transfer speed (too_slow), and retries it a bounded number of times', () => {
    const t = rowsOf('trickle').filter((r) => r.error_code === 'too_slow');
    expect(t.length).toBeGreaterThan(0);
    expect(t.every((r) => r.fetch_ms >= 1400 && r.fetch_ms < 2900)).toBe(true);
    expect(t.length).toBeLessThanOrEqual(2 * new Set(t.map((r) => r.url)).size);
  });

  it('refuses huge headers (headers_too_large) and takes slow first bytes within the limit', () => {
    expect(rowsOf('huge-headers').some((r) => r.error_code === 'headers_too_large')).toBe(true);
    expect(
      rowsOf('slow').some((r) => r.status === 200 && r.error_code === '' && r.fetch_ms >= 1900),
    ).toBe(true);
  });

  it('parses malformed HTML and ends a redirect loop', () => {
    expect(rowsOf('malformed').some((r) => r.status === 200 && r.error_code === '')).toBe(true);
    const loop = rowsOf('redirect-loop');
    expect(loop.some((r) => r.status >= 300 && r.status < 400)).toBe(true);
    // Each URL of the loop is requested once: the seen set ends the cycle.
    expect(new Set(loop.map((r) => r.url)).size).toBe(loop.length);
  });

  it('keeps memory bounded (the whole test process: web, coordinator, ClickHouse, agent)', () => {
    console.log(`peak RSS ${Math.round(peakRss / 1048576)} MB`);
    expect(peakRss).toBeLessThan(1024 * 1048576);
  });
});
