import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlAgent } from '@crawler/crawl-core';
import type { HostLease } from '@crawler/frontier';
import { runCrawlerCli } from './auth-kit';
import { startCrawlStack, type CrawlStack } from './crawl-stack';
import { page, sitemapIndex, startTinyWeb, urlset, type Site, type TinyWeb } from './tiny-web';

// Sitemaps as seeds, end to end: sitemap URLs added through the API and the CLI are fetched by
// a real agent and the pages they list are crawled, within sitemaps.org's scope (another host's
// pages where that host's robots.txt names the sitemap, read under its own lease even when the
// crawl had not met that host); and a hostile sitemap index (indexes of indexes, thousands of
// cross-host entries, priority 1.0 everywhere) stays contained. Judged from the tiny web's
// request log and the frontier.
const VICTIMS = 3000;
/**
 * Victims one host's sitemaps may have asked for their robots.txt in a day
 * (SITEMAP_LIMITS.maxForeignChecksPerHost): they are served, so their answers are seen.
 */
const CHECKED_VICTIMS = 20;
const OWN_PAGES = 40;
let web: TinyWeb;
let stack: CrawlStack;

const u = (host: string, path: string) => web.url(host, path);
const text = (lines: string[]) => ({ type: 'text/plain', body: lines.join('\n') });
const robots = (...lines: string[]) => text(['User-agent: *', ...lines]);
/** Pages answer any other path of a host. */
const withPages =
  (routes: () => Record<string, ReturnType<typeof page>>): Site =>
  (path) =>
    routes()[path] ?? (path === '/robots.txt' ? null : page(path));

const shop = withPages(() => ({
  '/robots.txt': robots('Disallow: /catalog/secret'),
  '/catalog/sitemap.xml': urlset([
    ...[1, 2, 3, 4].map((i) => u('shop.test', `/catalog/p${i}`)),
    u('shop.test', '/catalog/secret'), // robots.txt still applies
    u('shop.test', '/catalog/a/a/a/trap'), // a trap rule (repeated segments) keeps it out
    u('shop.test', '/elsewhere/x'), // outside the sitemap's directory
    u('other.test', '/not-yours'), // another host that names no sitemap
  ]),
  '/maps/index.xml': sitemapIndex([
    u('shop.test', '/maps/news.xml.gz'),
    u('shop.test', '/feeds/more.xml'), // an index lists sitemaps anywhere on its host
  ]),
  '/maps/news.xml.gz': {
    type: 'application/gzip',
    body: gzipSync(urlset([u('shop.test', '/maps/n1'), u('shop.test', '/maps/n2')]).body),
  },
  '/feeds/more.xml': urlset([u('shop.test', '/feeds/f1'), u('shop.test', '/maps/n3')]),
  '/old-sitemap.xml': { status: 301, location: '/moved/sitemap.xml', body: '' },
  '/moved/sitemap.xml': urlset([u('shop.test', '/moved/m1')]),
  '/lists/urls': text([u('shop.test', '/lists/a'), u('shop.test', '/lists/b')]),
  '/lists/plain': text([u('shop.test', '/lists/c')]),
  // Named in partner.test's and brand.test's robots.txt: may list them (cross-submission).
  // brand.test is met nowhere else: its robots.txt is read only to check this.
  '/partners/sitemap.xml': urlset([
    u('partner.test', '/from-shop'),
    u('brand.test', '/from-shop'),
    u('brand.test', '/also-from-shop'),
    u('other.test', '/nope'),
  ]),
}));

const ownPages = Array.from({ length: OWN_PAGES }, (_, i) => `/p/${i}`);
const hot = '<lastmod>2026-01-01</lastmod><changefreq>always</changefreq><priority>1.0</priority>';
const evil = withPages(() => ({
  '/robots.txt': robots('Allow: /'),
  '/index-0.xml': sitemapIndex([
    u('evil.test', '/index-1.xml'),
    u('evil.test', '/pages.xml'),
    ...Array.from({ length: VICTIMS }, (_, i) => u(`victim-${i}.test`, '/sitemap.xml')),
  ]),
  '/index-1.xml': sitemapIndex([u('evil.test', '/index-2.xml'), u('evil.test', '/deep/set-1.xml')]),
  '/index-2.xml': sitemapIndex([u('evil.test', '/index-3.xml'), u('evil.test', '/deep/set-2.xml')]),
  '/index-3.xml': sitemapIndex([u('evil.test', '/deep/set-3.xml')]),
  '/deep/set-1.xml': urlset([u('evil.test', '/deep/d1')], hot),
  '/deep/set-2.xml': urlset([u('evil.test', '/deep/d2')], hot),
  '/pages.xml': urlset(
    [
      ...ownPages.map((p) => u('evil.test', p)),
      ...Array.from({ length: VICTIMS }, (_, i) => u(`victim-${i}.test`, '/p')),
    ],
    hot.replace('2026-01-01', new Date().toISOString().slice(0, 10)),
  ),
}));

function postSeeds(body: unknown) {
  return fetch(`${stack.coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify(body),
  });
}

async function crawlUntilIdle(agent: CrawlAgent, timeoutMs = 90_000): Promise<void> {
  const frontier = stack.coordinator.services.frontier;
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    await sleep(300);
    if (agent.activeLeases === 0 && (await frontier.isIdle())) return;
  }
  throw new Error('the crawl did not finish in time');
}

const crawlerCli = (args: string[]) =>
  runCrawlerCli(args, {
    url: stack.coordinator.url,
    token: stack.env.admin.token,
    dataDir: stack.env.dataDir,
    timeoutMs: 120_000,
  });

beforeAll(async () => {
  web = await startTinyWeb({
    'shop.test': shop,
    'partner.test': withPages(() => ({
      '/robots.txt': robots('Allow: /', `Sitemap: ${u('shop.test', '/partners/sitemap.xml')}`),
      '/': page('partner', [u('deep.test', '/x')]),
    })),
    // Reached by a link (depth 1): its robots.txt's sitemap starts at that depth, not at 0.
    'deep.test': withPages(() => ({
      '/robots.txt': robots('Allow: /', `Sitemap: ${u('deep.test', '/sitemap.xml')}`),
      '/sitemap.xml': urlset([u('deep.test', '/d/1')]),
    })),
    'brand.test': withPages(() => ({
      '/robots.txt': robots(
        'Allow: /',
        `Sitemap: ${u('shop.test', '/partners/sitemap.xml')}`,
        `Sitemap: ${u('brand.test', '/own-sitemap.xml')}`,
      ),
      '/own-sitemap.xml': urlset([u('brand.test', '/own')]),
    })),
    'other.test': withPages(() => ({
      '/robots.txt': robots('Allow: /', `Sitemap: ${u('other.test', '/own-sitemap.xml')}`),
    })),
    'evil.test': evil,
    ...Object.fromEntries(
      Array.from({ length: CHECKED_VICTIMS }, (_, i) => [
        `victim-${i}.test`,
        withPages(() => ({})),
      ]),
    ),
  });
  stack = await startCrawlStack(
    web,
    {
      // Slow enough that the hostile crawl can be stopped between two of evil.test's requests.
      CRAWLER_DEFAULT_GAP_MS: '150',
      FETCH_TOTAL_TIMEOUT_MS: '4000',
      LOG_LEVEL: 'warn',
    },
    ['agent-seeds', 'agent-hostile-1', 'agent-hostile-2'],
  );
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

describe('sitemaps as seeds', () => {
  it('expands sitemap seeds added through the API and the CLI, within their scope', async () => {
    const res = await postSeeds({
      urls: [
        u('shop.test', '/catalog/sitemap.xml'),
        u('shop.test', '/maps/index.xml'),
        u('shop.test', '/old-sitemap.xml'),
        // A text list whose URL does not say "sitemap": a page seed unless flagged.
        u('shop.test', '/lists/plain'),
        u('partner.test', '/'),
      ],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ valid: 5, enqueued: 5, sitemaps: 3 });
    const cli = await crawlerCli(['seeds', 'add', '--sitemap', u('shop.test', '/lists/urls')]);
    expect(cli.code, cli.err).toBe(0);
    expect(JSON.parse(cli.out)).toMatchObject({ valid: 1, enqueued: 1, sitemaps: 1 });

    const agent = stack.agents[0]!;
    agent.start();
    await crawlUntilIdle(agent);
    await agent.stop();

    const shopPaths = new Set(web.requested('shop.test'));
    for (const p of [
      '/catalog/p1',
      '/catalog/p4',
      '/maps/news.xml.gz',
      '/maps/n1',
      '/maps/n2',
      '/feeds/more.xml',
      '/feeds/f1',
      '/moved/sitemap.xml', // the redirect target of a sitemap seed is read as one
      '/moved/m1',
      '/lists/a', // the flagged text sitemap
      '/lists/b',
    ])
      expect(shopPaths.has(p), p).toBe(true);
    for (const p of [
      '/catalog/secret',
      '/catalog/a/a/a/trap',
      '/elsewhere/x',
      '/maps/n3',
      '/lists/c',
    ])
      expect(shopPaths.has(p), p).toBe(false);
    // Each document and page once.
    expect(web.requested('shop.test').length).toBe(shopPaths.size);
    // partner.test's robots.txt names shop.test's partner sitemap: its entry there is crawled.
    expect(web.requested('partner.test')).toContain('/from-shop');
    // So does brand.test's, which the crawl had not met: its robots.txt is read under its own
    // lease (once), then its entries are crawled. The crawl goes no further there: the sitemaps
    // its robots.txt lists are not followed from such a check.
    const brand = web.requested('brand.test');
    expect(brand[0]).toBe('/robots.txt');
    expect(brand.filter((p) => p === '/robots.txt')).toHaveLength(1);
    expect(brand).toContain('/from-shop');
    expect(brand).toContain('/also-from-shop');
    expect(brand).not.toContain('/own-sitemap.xml');
    expect(brand).not.toContain('/own');
    // The sitemap entry a trap rule kept out is counted under its rule (agents write their
    // counts every 2 s).
    let quality: Record<string, number> = {};
    for (let i = 0; i < 30 && !quality.repeated_segments; i++) {
      if (i > 0) await sleep(200);
      const stats = await fetch(`${stack.coordinator.url}/v1/stats`, { headers: stack.env.auth });
      quality = ((await stats.json()) as { quality: Record<string, number> }).quality;
    }
    expect(quality.repeated_segments).toBe(1);
    // other.test names neither sitemap that lists it: it is asked for its robots.txt once,
    // nothing more; nothing listed for it is crawled, nor its own sitemap.
    expect(web.requested('other.test')).toEqual(['/robots.txt']);
  }, 180_000);

  it('puts sitemap pages one hop below their sitemap, whatever the index above it', async () => {
    await stack.coordinator.ingest.settle();
    const rows = await stack.coordinator.services.analytics.queryJson<{
      url: string;
      depth: number;
    }>('SELECT url, depth FROM fetches FINAL');
    const depth = new Map(rows.map((r) => [r.url, Number(r.depth)]));
    expect(depth.get(u('shop.test', '/catalog/sitemap.xml'))).toBe(0);
    expect(depth.get(u('shop.test', '/catalog/p1'))).toBe(1);
    expect(depth.get(u('shop.test', '/maps/news.xml.gz'))).toBe(0);
    expect(depth.get(u('shop.test', '/maps/n1'))).toBe(1);
    expect(depth.get(u('partner.test', '/from-shop'))).toBe(1);
    expect(depth.get(u('brand.test', '/from-shop'))).toBe(1);
    // robots.txt Sitemap: lines take the depth of the URL that fetched the robots.txt.
    expect(depth.get(u('deep.test', '/x'))).toBe(1);
    expect(depth.get(u('deep.test', '/sitemap.xml'))).toBe(1);
    expect(depth.get(u('deep.test', '/d/1'))).toBe(2);
  });
});

describe('a hostile sitemap index', () => {
  it('cannot put its pages ahead of the default tier, even from a top-priority seed', async () => {
    const res = await postSeeds({ urls: [u('evil.test', '/index-0.xml')], priority: 0 });
    expect(await res.json()).toMatchObject({ valid: 1, enqueued: 1, sitemaps: 1 });
    const agent = stack.agents[1]!;
    agent.start();
    for (let i = 0; i < 600 && !web.requested('evil.test').includes('/pages.xml'); i++)
      await sleep(10);
    // The lease that fetched /pages.xml enqueues its entries before it completes; stopping
    // waits for it, and no request starts after.
    await agent.stop();
    const frontier = stack.coordinator.services.frontier;
    // The host is leasable again once its gap after the last request has passed.
    let leases: HostLease[] = [];
    for (let i = 0; i < 50 && !leases.some((l) => l.host === 'evil.test'); i++) {
      for (const l of leases) await frontier.complete(l, { processed: 0, delayMs: 0, paceMs: 0 });
      await sleep(100);
      leases = await frontier.lease('probe', 50);
    }
    try {
      const queued = leases.find((l) => l.host === 'evil.test')?.urls ?? [];
      const pages = queued.filter((q) => q.source === 'sitemap');
      expect(pages.length).toBeGreaterThan(0);
      expect(pages.every((q) => q.tier === '1')).toBe(true);
      expect(queued.filter((q) => q.tier === '0')).toEqual([]);
    } finally {
      for (const l of leases)
        await frontier.complete(l, { processed: 0, delayMs: 0, paceMs: l.gapMs });
    }
  }, 60_000);

  it('follows no index nested twice and no cross-host entry, and finishes', async () => {
    const agent = stack.agents[2]!;
    agent.start();
    await crawlUntilIdle(agent);
    await agent.stop();
    const evilPaths = new Set(web.requested('evil.test'));
    for (const p of [
      '/index-0.xml',
      '/index-1.xml', // an index listed by the root index: tolerated, one level
      '/index-2.xml', // fetched as its child, but an index this deep is not expanded
      '/deep/set-1.xml',
      '/deep/d1',
      '/pages.xml',
      ...ownPages,
    ])
      expect(evilPaths.has(p), p).toBe(true);
    for (const p of ['/index-3.xml', '/deep/set-2.xml', '/deep/set-3.xml', '/deep/d2'])
      expect(evilPaths.has(p), p).toBe(false);
    // No victim's page or sitemap was requested: the first CHECKED_VICTIMS were asked for their
    // robots.txt (which names no evil.test sitemap), the others never heard of, nor entered
    // the frontier.
    for (let i = 0; i < CHECKED_VICTIMS; i++)
      expect(web.requested(`victim-${i}.test`), `victim-${i}`).toEqual(['/robots.txt']);
    const frontier = stack.coordinator.services.frontier;
    for (const i of [CHECKED_VICTIMS, 777, 2999])
      expect((await frontier.hostState(`victim-${i}.test`)).fields).toEqual({});
    expect(web.requested('evil.test').length).toBe(evilPaths.size);
  }, 120_000);
});
