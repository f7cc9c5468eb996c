import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlAgent } from '@crawler/crawl-core';
import { CompiledBlockRules, type BlockRule } from '@crawler/domain/traps';
import { normalizeUrl, urlFingerprint } from '@crawler/domain/url';
import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import { largestPlainHost, startCrawlStack, type CrawlStack } from './crawl-stack';

// A pattern block applied live: patterns added through the API while an agent crawls reach it
// within seconds, and from then on links matching them are dropped at enqueue — the frontier's
// seen set never gets them and the web never sees a request for them — while the rest of the
// host is crawled as before. Judged from the frontier's seen set and the web's request log.
// (URLs queued before a pattern was added are the lease-time check's business, not judged here.)
let web: SyntheticWeb;
let stack: CrawlStack;
let agent: CrawlAgent;
/** Crawled first: the agent is busy on it when the patterns arrive. */
let first: string;
/** Seeded after the patterns: none of its matching URLs may ever be queued. */
let second: string;

const api = (method: string, path: string, body?: unknown) =>
  fetch(`${stack.coordinator.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
const requestsTo = (h: string) => web.log().filter((e) => e.host === h);
/** The host's URLs from the web's manifest, normalized as the crawler stores them. */
function urlsOf(host: string): string[] {
  return web
    .manifest()
    .expected.filter((u) => new URL(u).hostname === host)
    .flatMap((u) => {
      const n = normalizeUrl(u);
      return n.ok ? [n.url] : [];
    });
}
/** The host's most common first path segment (a section of the site). */
function biggestSection(host: string, not?: string): string {
  const counts = new Map<string, number>();
  for (const u of urlsOf(host)) {
    const s = new URL(u).pathname.split('/')[1] ?? '';
    if (s !== '' && s !== not && !s.includes('.')) counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}
function normalizeUrlOrThrow(url: string): string {
  const n = normalizeUrl(url);
  if (!n.ok) throw new Error(`${url}: ${n.reason}`);
  return n.url;
}
const stats = async () =>
  (await (await api('GET', '/v1/stats')).json()) as { quality: Record<string, number> };
async function seen(urls: string[]): Promise<boolean[]> {
  return stack.coordinator.services.frontier.seenBatch(
    urls.map((u) => ({ urlFp: urlFingerprint(u), host: new URL(u).hostname })),
  );
}

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 3, hosts: 50, maxPagesPerHost: 400, hostile: false });
  first = largestPlainHost(web);
  second = web.hosts
    .filter(
      (h) =>
        h.host !== first &&
        h.kind === 'normal' &&
        h.crawlDelayS === null &&
        (h.robots === 'missing' || h.robots === 'ok'),
    )
    .sort((a, b) => b.pages - a.pages)[0]!.host;
  stack = await startCrawlStack(web, { CRAWLER_DEFAULT_GAP_MS: '40', CRAWLER_MAX_DEPTH: '20' }, [
    'agent-block-live',
  ]);
  agent = stack.agents[0]!;
  const seed = web.seeds.find((s) => new URL(s).hostname === first)!;
  expect((await api('POST', '/v1/seeds', { urls: [seed] })).status).toBe(200);
  agent.start();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

describe('URL block patterns applied live', () => {
  it('reach a running agent within seconds; matching links are never queued from then on', async () => {
    for (let i = 0; i < 100 && requestsTo(first).length < 10; i++) await sleep(100);
    expect(requestsTo(first).length).toBeGreaterThanOrEqual(10);
    expect(agent.counters.blockRefused).toBe(0);

    // One pattern for every host of the synthetic web (a section of the host being crawled),
    // one of the second host's own (the .html pages of another of its sections).
    const domainPattern = `/${biggestSection(first)}/`;
    const hostPattern = `/${biggestSection(second, domainPattern.slice(1, -1))}/*.html`;
    const rules: BlockRule[] = [
      { host: '*.web.test', blocked: null, patterns: [domainPattern] },
      { host: second, blocked: null, patterns: [hostPattern] },
    ];
    const versionBefore = (
      (await (await api('GET', '/v1/block-rules')).json()) as {
        version: number;
      }
    ).version;
    // The second host's pattern first, then the domain's: two versions.
    expect(
      (await api('POST', `/v1/hosts/${second}/block-patterns`, { pattern: hostPattern })).status,
    ).toBe(200);
    expect(
      (await api('POST', '/v1/hosts/*.web.test/block-patterns', { pattern: domainPattern })).status,
    ).toBe(200);
    const addedAt = Date.now();
    const after = (await (await api('GET', '/v1/block-rules')).json()) as { version: number };
    expect(after.version).toBe(versionBefore + 2);

    // The agent holds the version with both patterns within a few seconds (a drop alone could
    // come from the host pattern, published first) and drops the first host's matching links.
    while (agent.blockRulesVersion !== after.version && Date.now() - addedAt < 8000)
      await sleep(50);
    const appliedMs = Date.now() - addedAt;
    expect(agent.blockRulesVersion).toBe(after.version);
    expect(appliedMs).toBeLessThan(5000);
    while (agent.counters.blockRefused === 0 && Date.now() - addedAt < 8000) await sleep(50);
    expect(agent.counters.blockRefused, 'no link was dropped').toBeGreaterThan(0);

    // From then on, no URL matching a pattern enters the seen set. Pages of the first host link
    // to other hosts, so some of the second host's URLs may have been queued before the rules
    // landed (the lease-time check skips those): only the ones unseen then are judged.
    const oracle = new CompiledBlockRules(rules);
    const matching = (host: string) => urlsOf(host).filter((u) => oracle.match(u, host) !== null);
    const firstMatching = matching(first);
    const secondMatching = matching(second);
    expect(firstMatching.length).toBeGreaterThan(0);
    // Links found before the rules landed may still be on their way to the frontier (under load
    // for longer than any fixed wait): written before the seen set is read.
    await agent.linksWritten();
    const [firstBefore, secondBefore] = [await seen(firstMatching), await seen(secondMatching)];
    const secondUnseen = secondMatching.filter((_, i) => !secondBefore[i]);
    expect(secondUnseen.length).toBeGreaterThan(0);
    const refusedBefore = agent.counters.blockRefused;
    await sleep(2200); // the agent's pending rule counts written
    const statsBefore = (await stats()).quality.blocked_pattern ?? 0;

    // The second host is seeded now: its crawl finds links to the unseen matching URLs.
    const seed = web.seeds.find((s) => new URL(s).hostname === second)!;
    expect((await api('POST', '/v1/seeds', { urls: [seed] })).status).toBe(200);
    // Until its crawl settles: no new request to it for 4 s (30 s at most).
    let lastCount = -1;
    for (let quietSince = Date.now(), t0 = Date.now(); Date.now() - t0 < 30_000;) {
      const n = requestsTo(second).length;
      if (n !== lastCount) [lastCount, quietSince] = [n, Date.now()];
      else if (n > 0 && Date.now() - quietSince > 4000) break;
      await sleep(100);
    }
    expect(requestsTo(second).length).toBeGreaterThanOrEqual(15);

    expect(agent.counters.blockRefused).toBeGreaterThan(refusedBefore);
    expect(await seen(firstMatching)).toEqual(firstBefore);
    const secondAfter = await seen(secondUnseen);
    expect(secondUnseen.filter((_, i) => secondAfter[i])).toEqual([]);
    const fetched = new Set(requestsTo(second).map((e) => normalizeUrlOrThrow(e.url)));
    expect(secondUnseen.filter((u) => fetched.has(u))).toEqual([]);
    // …while the rest of it is crawled.
    const secondOther = urlsOf(second).filter((u) => oracle.match(u, second) === null);
    expect((await seen(secondOther)).filter(Boolean).length).toBeGreaterThan(
      secondOther.length * 0.8,
    );

    // The drops are in the crawl's quality counters too (GET /v1/stats), not only the agent's
    // own count: links of a host the agent holds, dropped at enqueue, as well as URLs dropped at
    // their lease (agents write their counts every 2 s). The lease-time check could have dropped
    // at most the matching URLs queued before the patterns: the rest were links.
    await sleep(2200);
    const counted = (await stats()).quality.blocked_pattern ?? 0;
    const queuedBefore = [...firstBefore, ...secondBefore].filter(Boolean).length;
    expect(counted - statsBefore).toBeGreaterThan(queuedBefore);
    // Every drop the stats count, the agent counted.
    expect(counted).toBeLessThanOrEqual(agent.counters.blockRefused);
  }, 70_000);
});
