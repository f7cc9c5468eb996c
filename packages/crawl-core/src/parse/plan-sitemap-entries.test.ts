import { describe, expect, it } from 'vitest';
import { parseSitemap } from '@crawler/domain/sitemaps';
import { DEFAULT_TRAP_LIMITS } from '@crawler/domain/traps';
import { urlFingerprint } from '@crawler/domain/url';
import { planSitemapEntries, type SitemapDocument } from './plan-sitemap-entries';
import { SITEMAP_LIMITS } from './sitemap-limits';
import { ROOT_STANDING } from './sitemap-scope';

const NOW = new Date('2026-05-01T12:00:00Z');
const SITEMAP = 'http://a.test/catalog/sitemap.xml';

function urlset(urls: Array<string | { loc: string; lastmod?: string; priority?: string }>) {
  const items = urls.map((u) => {
    const e = typeof u === 'string' ? { loc: u } : u;
    return `<url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}${
      e.priority ? `<priority>${e.priority}</priority>` : ''
    }</url>`;
  });
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</urlset>`;
}

function index(locs: string[]) {
  const items = locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('');
  return `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items}</sitemapindex>`;
}

async function plan(
  xml: string,
  doc: Partial<SitemapDocument> = {},
  opts: {
    named?: string[];
    /** Origins whose robots.txt is not known yet. */
    unknown?: string[];
    maxDepth?: number;
    limits?: Partial<typeof SITEMAP_LIMITS>;
    asked?: string[];
  } = {},
) {
  const url = doc.url ?? SITEMAP;
  const parsed = await parseSitemap(new TextEncoder().encode(xml), { sitemapUrl: url });
  return planSitemapEntries(
    parsed,
    { url, host: new URL(url).hostname, depth: 0, tier: 1, standing: ROOT_STANDING, ...doc },
    {
      robotsNames: (origin) => {
        opts.asked?.push(origin);
        if (opts.unknown?.includes(origin)) return Promise.resolve(null);
        return Promise.resolve((opts.named ?? []).includes(origin));
      },
      trap: { ...DEFAULT_TRAP_LIMITS, maxDepth: opts.maxDepth ?? 8 },
      now: NOW,
      limits: { ...SITEMAP_LIMITS, ...opts.limits },
    },
  );
}

describe('planSitemapEntries: scope', () => {
  it('keeps pages under the sitemap’s host and directory, and drops the rest', async () => {
    const p = await plan(
      urlset([
        'http://a.test/catalog/p1',
        'https://a.test/catalog/p2', // the same host over https: one frontier host
        'http://a.test/catalog/sub/p3',
        'http://a.test/images/x.png',
        'http://a.test/catalogue',
        'http://b.test/catalog/p4',
      ]),
    );
    expect(p.pages.map((u) => u.url)).toEqual([
      'http://a.test/catalog/p1',
      'https://a.test/catalog/p2',
      'http://a.test/catalog/sub/p3',
    ]);
    expect(p.dropped).toEqual({ out_of_scope: 2, cross_host: 1 });
  });

  it('lets a sitemap its host’s robots.txt names list the whole host', async () => {
    const p = await plan(urlset(['http://a.test/catalog/p1', 'http://a.test/images/x']), {
      standing: { level: 0, ownHost: 'host' },
    });
    expect(p.pages).toHaveLength(2);
    expect(p.dropped).toEqual({});
  });

  it('keeps another host’s entries only where that host’s robots.txt names the sitemap', async () => {
    const asked: string[] = [];
    const p = await plan(
      urlset([
        'http://b.test/1',
        'http://b.test/2',
        'http://c.test/1',
        'https://b.test/3', // another origin of b.test: asked on its own
      ]),
      {},
      { named: ['http://b.test'], asked },
    );
    expect(p.pages.map((u) => u.url)).toEqual(['http://b.test/1', 'http://b.test/2']);
    expect(p.dropped).toEqual({ cross_host: 2 });
    expect(asked).toEqual(['http://b.test', 'http://c.test', 'https://b.test']);
    expect(p.foreignHosts).toBe(3);
  });

  it('plans entries on hosts whose robots.txt is not known yet, and lists their origins', async () => {
    const p = await plan(
      index([
        'http://a.test/s/own.xml',
        'http://b.test/s/1.xml',
        'http://c.test/s/1.xml',
        'http://d.test/s/1.xml',
      ]),
      { url: 'http://a.test/index.xml' },
      { named: ['http://b.test'], unknown: ['http://c.test'] },
    );
    expect(p.children.map((c) => [c.url.url, c.standing.ownHost])).toEqual([
      ['http://a.test/s/own.xml', 'dir'],
      ['http://b.test/s/1.xml', 'host'],
      // Kept for the check: held until c.test's robots.txt is read, and named there.
      ['http://c.test/s/1.xml', 'host'],
    ]);
    expect(p.unverified).toEqual(['http://c.test']);
    expect(p.dropped).toEqual({ cross_host: 1 });
    // The trap rules apply to them as to any entry.
    const deep = await plan(
      urlset(['http://c.test/p', 'http://c.test/a/a/a/p']),
      { depth: 8 },
      { unknown: ['http://c.test'] },
    );
    expect(deep.pages).toEqual([]);
    expect(deep.dropped).toEqual({ too_deep: 2 });
  });

  it('asks about at most maxForeignHosts other hosts, and drops entries on the rest', async () => {
    const hosts = Array.from({ length: 50 }, (_, i) => `http://h${i}.test`);
    const asked: string[] = [];
    const p = await plan(
      urlset(hosts.map((h) => `${h}/page`)),
      {},
      { named: hosts, asked, limits: { maxForeignHosts: 5 } },
    );
    expect(asked).toEqual(hosts.slice(0, 5));
    expect(p.pages).toHaveLength(5);
    expect(p.dropped).toEqual({ cross_host: 45 });
  });
});

describe('planSitemapEntries: depth, traps and tiers', () => {
  it('puts pages one hop below the sitemap with a new hop count, within the depth limit', async () => {
    const p = await plan(urlset(['http://a.test/catalog/p1']), { depth: 2 });
    expect(p.pages).toEqual([
      {
        url: 'http://a.test/catalog/p1',
        urlFp: urlFingerprint('http://a.test/catalog/p1'),
        host: 'a.test',
        depth: 3,
        priority: 2,
        source: 'sitemap',
      },
    ]);
    expect(p.pages[0]).not.toHaveProperty('hops');
    const deep = await plan(
      urlset(['http://a.test/catalog/p1', 'http://a.test/catalog/p2']),
      {
        depth: 3,
      },
      { maxDepth: 3 },
    );
    expect(deep.pages).toEqual([]);
    expect(deep.dropped).toEqual({ too_deep: 2 });
  });

  it('applies the trap rules and drops repeated locs (the parser drops unusable ones)', async () => {
    const p = await plan(
      urlset([
        'http://a.test/catalog/a/a/a/x',
        `http://a.test/catalog/${Array.from({ length: 20 }, (_, i) => `s${i}`).join('/')}`,
        'http://a.test/catalog/ok',
        'http://a.test/catalog/ok#again',
        `http://a.test/catalog/${'x'.repeat(2100)}`,
        'mailto:x@a.test',
      ]),
    );
    expect(p.pages.map((u) => u.url)).toEqual(['http://a.test/catalog/ok']);
    expect(p.dropped).toEqual({ repeated_segments: 1, path_too_deep: 1, duplicate: 1 });
  });

  it('never puts a page above the default tier, nor above the sitemap’s own tier', async () => {
    const xml = urlset([
      { loc: 'http://a.test/catalog/fresh', lastmod: '2026-05-01', priority: '1.0' },
      { loc: 'http://a.test/catalog/future', lastmod: '2030-01-01', priority: '1.0' },
      { loc: 'http://a.test/catalog/week', lastmod: '2026-04-27' },
      { loc: 'http://a.test/catalog/old', lastmod: '2020-01-01', priority: '1.0' },
      { loc: 'http://a.test/catalog/none', priority: '1.0' },
    ]);
    const tiers = (p: Awaited<ReturnType<typeof plan>>) => p.pages.map((u) => u.priority);
    expect(tiers(await plan(xml, { tier: 0 }))).toEqual([1, 2, 1, 3, 2]);
    expect(tiers(await plan(xml, { tier: 3 }))).toEqual([3, 3, 3, 3, 3]);
  });
});

describe('planSitemapEntries: indexes', () => {
  it('lists sitemaps anywhere on its host at its own depth and tier, one level down', async () => {
    const p = await plan(
      index([
        'http://a.test/sitemaps/part-1.xml.gz',
        'http://a.test/other/part-2.xml',
        'http://b.test/part-3.xml',
      ]),
      { url: 'http://a.test/sitemap_index.xml', depth: 1, tier: 0 },
      { named: ['http://b.test'] },
    );
    expect(p.pages).toEqual([]);
    expect(
      p.children.map((c) => [c.url.url, c.url.depth, c.url.priority, c.url.source, c.standing]),
    ).toEqual([
      ['http://a.test/sitemaps/part-1.xml.gz', 1, 1, 'sitemap-file', { level: 1, ownHost: 'dir' }],
      ['http://a.test/other/part-2.xml', 1, 1, 'sitemap-file', { level: 1, ownHost: 'dir' }],
      // b.test's robots.txt names the index: the sitemap may list all of b.test.
      ['http://b.test/part-3.xml', 1, 1, 'sitemap-file', { level: 1, ownHost: 'host' }],
    ]);
  });

  it('passes the whole-host scope of a robots.txt-named index to its sitemaps', async () => {
    const p = await plan(index(['http://a.test/sitemaps/part-1.xml']), {
      url: 'http://a.test/sitemap_index.xml',
      standing: { level: 0, ownHost: 'host' },
    });
    expect(p.children[0]?.standing).toEqual({ level: 1, ownHost: 'host' });
  });

  it('follows at most maxChildrenPerIndex sitemaps of one index', async () => {
    const locs = Array.from({ length: 30 }, (_, i) => `http://a.test/s/${i}.xml`);
    const p = await plan(index(locs), {}, { limits: { maxChildrenPerIndex: 10 } });
    expect(p.children.map((c) => c.url.url)).toEqual(locs.slice(0, 10));
    expect(p.dropped).toEqual({ index_cap: 20 });
  });

  it('expands an index nested one level, not deeper', async () => {
    const xml = index(['http://a.test/s/1.xml', 'http://a.test/s/2.xml']);
    const nested = await plan(xml, { standing: { level: 1, ownHost: 'dir' } });
    expect(nested.children.map((c) => c.standing.level)).toEqual([2, 2]);
    const deeper = await plan(xml, { standing: { level: 2, ownHost: 'host' } });
    expect(deeper.children).toEqual([]);
    expect(deeper.dropped).toEqual({ nested_index: 2 });
    // A urlset at that level is still read: only indexes stop chaining.
    const pages = await plan(urlset(['http://a.test/catalog/p']), {
      standing: { level: 2, ownHost: 'dir' },
    });
    expect(pages.pages).toHaveLength(1);
  });

  it('contains a hostile index: thousands of cross-host sitemaps come to nothing', async () => {
    const locs = [
      ...Array.from({ length: 3000 }, (_, i) => `http://victim-${i}.test/sitemap.xml`),
      'http://a.test/s/own.xml',
    ];
    const asked: string[] = [];
    const p = await plan(index(locs), {}, { asked });
    expect(asked).toHaveLength(SITEMAP_LIMITS.maxForeignHosts);
    expect(p.children.map((c) => c.url.url)).toEqual(['http://a.test/s/own.xml']);
    expect(p.dropped).toEqual({ cross_host: 3000 });
  });
});
