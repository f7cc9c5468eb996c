import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnqueueUrl } from '@crawler/frontier';
import { hostOf, normalizeUrl, urlFingerprint } from '@crawler/domain/url';
import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import { startCrawlStack, type CrawlStack } from './crawl-stack';
import { httpCall, type ApiError } from './http-call';

// The URL inspector and the capture reader on one small crawl: a fetched page with its
// captures read back from the WARC store, a URL robots.txt refused, a blocked host's seed, a
// trap URL never discovered, and one nobody knows.
let web: SyntheticWeb;
let stack: CrawlStack;
let crawled: string[] = [];
let blockedHost = '';

interface Inspection {
  url: string;
  url_fp: string;
  host: string;
  history: { status: number; error_code: string; warc_key: string }[];
  captures: { warc_key: string; warc_offset: number; warc_length: number; record_type: string }[];
  page: { title: string; links: { url: string; nofollow: boolean }[] } | null;
  verdict: { fetched: boolean; reason: string; detail: string };
  recrawl: unknown;
}

const call = <T>(path: string) =>
  httpCall<T>(stack.coordinator.url, 'GET', path, { headers: stack.env.auth });
const inspect = (url: string) => call<Inspection>(`/v1/urls?url=${encodeURIComponent(url)}`);

function entry(url: string): EnqueueUrl {
  const n = normalizeUrl(url);
  if (!n.ok) throw new Error(`bad seed ${url}`);
  return {
    url: n.url,
    urlFp: urlFingerprint(n.url),
    host: hostOf(n.url),
    depth: 0,
    source: 'seed',
  };
}

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 11, hosts: 24, maxPagesPerHost: 6, hostile: false });
  stack = await startCrawlStack(web, { CRAWLER_DEFAULT_GAP_MS: '20' }, ['agent-inspect']);
  const plain = web.hosts.filter((h) => h.crawlDelayS === null && h.robots !== '5xx');
  const withRules = plain.filter(
    (h) => h.robotsTxt !== null && /Disallow:\s*\/\S/i.test(h.robotsTxt),
  );
  expect(withRules.length).toBeGreaterThan(1);
  crawled = [...new Set([...withRules.slice(0, 4), ...plain.slice(0, 2)].map((h) => h.host))];
  blockedHost = plain.find((h) => !crawled.includes(h.host))!.host;
  const frontier = stack.coordinator.services.frontier;
  for (const h of web.hosts.filter((x) => !crawled.includes(x.host)))
    await frontier.setHostPolicy(h.host, { gapMs: null, blocked: true });
  await frontier.enqueue(
    web.seeds.filter((s) => [...crawled, blockedHost].includes(new URL(s).hostname)).map(entry),
  );
  stack.agents[0]!.start();
  let quiet = 0;
  const until = Date.now() + 60_000;
  while (quiet < 2 && Date.now() < until) {
    await sleep(250);
    const s = await frontier.stats();
    const idle =
      stack.agents[0]!.activeLeases === 0 && s.readyHosts + s.scheduledHosts + s.openLeases === 0;
    quiet = idle ? quiet + 1 : 0;
  }
  await stack.coordinator.ingest.settle();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

describe('GET /v1/urls: the URL inspector', () => {
  it('a fetched page: history, captures, parsed page and the verdict "fetched"', async () => {
    const seed = web.seeds.find((s) => new URL(s).hostname === crawled[0])!;
    const res = await inspect(seed);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const n = entry(seed);
    expect([res.body.url, res.body.url_fp, res.body.host]).toEqual([n.url, n.urlFp, n.host]);
    expect(res.body.verdict).toMatchObject({ fetched: true, reason: 'fetched' });
    expect(res.body.history[0]!.status).toBe(200);
    expect(res.body.captures.length).toBeGreaterThan(0);
    // The re-crawl store scheduled the page when its fetch was ingested.
    const recrawl = res.body.recrawl as { interval_ms: number; due_at: string } | null;
    expect(recrawl, 'a re-crawl schedule').not.toBeNull();
    expect(recrawl!.interval_ms).toBeGreaterThan(0);
    expect(Date.parse(recrawl!.due_at)).toBeGreaterThan(Date.now());
  });

  it('reads a capture back from the WARC store (GET /v1/captures)', async () => {
    const seed = web.seeds.find((s) => new URL(s).hostname === crawled[0])!;
    const c = (await inspect(seed)).body.captures[0]!;
    const res = await call<{
      warc_headers: Record<string, string>;
      http_status: number;
      http_headers: Record<string, string>;
      body: string;
      truncated: boolean;
      body_bytes: number;
      digests_ok: boolean;
    }>(
      `/v1/captures?key=${encodeURIComponent(c.warc_key)}&offset=${c.warc_offset}&length=${c.warc_length}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.warc_headers['WARC-Target-URI']).toBe(entry(seed).url);
    expect(res.body.warc_headers['WARC-Type']).toBe(c.record_type);
    expect([res.body.http_status, res.body.digests_ok, res.body.truncated]).toEqual([
      200,
      true,
      false,
    ]);
    expect(res.body.body).toMatch(/<html/i);
    expect(res.body.body_bytes).toBe(Buffer.byteLength(res.body.body));
    // The same record over tRPC.
    const input = encodeURIComponent(
      JSON.stringify({ key: c.warc_key, offset: c.warc_offset, length: c.warc_length }),
    );
    const t = await call<{ result: { data: { digests_ok: boolean } } }>(
      `/trpc/captures.read?input=${input}`,
    );
    expect(t.body.result.data.digests_ok).toBe(true);
  });

  it('a range that is not a record is 400', async () => {
    const seed = web.seeds.find((s) => new URL(s).hostname === crawled[0])!;
    const c = (await inspect(seed)).body.captures[0]!;
    const res = await call<ApiError>(
      `/v1/captures?key=${encodeURIComponent(c.warc_key)}&offset=${c.warc_offset + 1}&length=${c.warc_length}`,
    );
    expect(res.status).toBe(400);
  });

  it('a URL robots.txt disallows: "robots"', async () => {
    const [denied] = await stack.coordinator.services.analytics.queryJson<{ url: string }>(
      `SELECT url FROM fetches WHERE error_code = 'robots_denied' LIMIT 1`,
    );
    expect(denied, 'the crawl met a disallowed link').toBeDefined();
    const res = await inspect(denied!.url);
    expect(res.body.verdict).toMatchObject({ fetched: false, reason: 'robots' });
    expect(res.body.captures).toEqual([]);
  });

  it('the seed of a blocked host: "blocked"', async () => {
    const seed = web.seeds.find((s) => new URL(s).hostname === blockedHost)!;
    const res = await inspect(seed);
    expect(res.body.history).toEqual([]);
    expect(res.body.verdict).toMatchObject({ fetched: false, reason: 'blocked' });
  });

  it('a URL queued on a host whose daily budget is spent: "budget"', async () => {
    const host = crawled[1]!;
    const fetchedToday = Number(
      (await stack.coordinator.services.frontier.hostState(host)).fields.budget_used,
    );
    expect(fetchedToday).toBeGreaterThan(0);
    const put = await httpCall(stack.coordinator.url, 'PUT', `/v1/hosts/${host}`, {
      headers: stack.env.auth,
      body: { daily_budget: fetchedToday },
    });
    expect(put.status).toBe(200);
    const url = `http://${host}/after-the-budget.html`;
    await stack.coordinator.services.frontier.enqueue([entry(url)]);
    const res = await inspect(url);
    expect(res.body.verdict).toMatchObject({ fetched: false, reason: 'budget' });
    expect(res.body.history).toEqual([]);
  });

  it('a trap URL never discovered: "trap" with the rule', async () => {
    const res = await inspect(`http://${crawled[0]}/a/b/a/b/a/b/x.html`);
    expect(res.body.verdict.reason).toBe('trap');
    expect(res.body.verdict.detail).toContain('repeated_segments');
  });

  it('a URL nobody knows: "unknown", saying what was checked', async () => {
    const res = await inspect(`http://${crawled[0]}/never-linked.html`);
    expect(res.body.verdict.reason).toBe('unknown');
    expect(res.body.verdict.detail).toContain('seen set');
  });

  it('normalizes the input like the crawler (case, fragment, default port)', async () => {
    const seed = new URL(web.seeds.find((s) => new URL(s).hostname === crawled[0])!);
    const messy = `${seed.protocol}//${seed.host.toUpperCase()}${seed.pathname}#frag`;
    const res = await inspect(messy);
    expect(res.body.url).toBe(entry(seed.toString()).url);
    expect(res.body.verdict.reason).toBe('fetched');
  });
});

describe('crawl views', () => {
  it('GET /v1/hosts/{host} shows the robots.txt agents use', async () => {
    const host = crawled[0]!;
    const res = await call<{
      robots: {
        status: number;
        body: string;
        rules_summary: { verdict: string; disallow_lines: number };
      } | null;
      recent_fetches: unknown[];
    }>(`/v1/hosts/${host}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.robots).not.toBeNull();
    expect(res.body.robots!.status).toBe(200);
    expect(res.body.robots!.body).toBe(web.hosts.find((h) => h.host === host)!.robotsTxt);
    expect(res.body.robots!.rules_summary.verdict).toBe('rules');
    expect(res.body.robots!.rules_summary.disallow_lines).toBeGreaterThan(0);
    expect(res.body.recent_fetches.length).toBeGreaterThan(0);
  });

  it('GET /v1/agents lists the crawling agent', async () => {
    const res = await call<{ items: { id: string; alive: boolean }[] }>('/v1/agents');
    expect(res.body.items.map((a) => a.id)).toContain('agent-inspect');
  });
});
