import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import { httpGet, type RawResponse } from '@crawler/synthetic-web/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRobots } from '../robots';
import { looksLikeSitemap } from './looks-like-sitemap';
import { parseSitemap } from './parse-sitemap';
import type { ParsedSitemap } from './parse-sitemap.types';

describe("parseSitemap against the synthetic web's sitemaps", () => {
  let web: SyntheticWeb;
  const fetched = new Map<string, { res: RawResponse; parsed: ParsedSitemap }>();

  /** GET an absolute synthetic-web URL: its host is mapped to its loopback IP. */
  const get = (url: string): Promise<RawResponse> => {
    const u = new URL(url);
    const ip = web.dnsMap[u.hostname];
    if (ip === undefined) throw new Error(`unknown host ${u.hostname}`);
    return httpGet(ip, web.port, u.hostname, `${u.pathname}${u.search}`);
  };

  beforeAll(async () => {
    web = await startSyntheticWeb({ hosts: 60, seed: 1 });
    for (const url of web.manifest().sitemaps) {
      const res = await get(url);
      // Every sitemap here is named in robots.txt or reached through an index that is: the
      // whole host is in scope (sitemaps.org cross-submission through robots.txt).
      const scopeUrl = new URL('/robots.txt', url).href;
      fetched.set(url, {
        res,
        parsed: await parseSitemap(res.body, { sitemapUrl: url, scopeUrl }),
      });
    }
  });
  afterAll(async () => {
    await web.close();
  });

  const malformedHost = (): string => {
    const h = web.hosts.find((x) => x.kind === 'malformed');
    if (h === undefined) throw new Error('no malformed host');
    return h.host;
  };

  it('covers every sitemap format the web serves', () => {
    const kinds = new Set([...fetched.values()].map((f) => f.parsed.kind));
    expect(kinds).toEqual(new Set(['urlset', 'sitemapindex', 'text']));
    expect([...fetched.keys()].some((u) => u.endsWith('.xml.gz'))).toBe(true);
    expect(fetched.size).toBeGreaterThanOrEqual(6);
  });

  it('parses every listed sitemap without errors, and each loc is a page the crawl expects', () => {
    const expected = new Set(web.manifest().expected);
    const sitemaps = new Set(web.manifest().sitemaps);
    for (const [url, { res, parsed }] of fetched) {
      if (new URL(url).hostname === malformedHost()) continue;
      expect(res.status, url).toBe(200);
      expect(parsed.errors, url).toEqual([]);
      expect(parsed.truncated, url).toBeNull();
      expect(parsed.entries.length, url).toBeGreaterThan(0);
      for (const e of parsed.entries) {
        expect(new URL(e.loc).host, e.loc).toBe(new URL(url).host);
        if (parsed.kind === 'sitemapindex') expect(sitemaps.has(e.loc), e.loc).toBe(true);
        else expect(expected.has(e.loc), e.loc).toBe(true);
      }
      if (parsed.kind === 'urlset') {
        expect(parsed.entries.every((e) => e.lastmod instanceof Date)).toBe(true);
      }
    }
  });

  it('resolves every index to its children, gzip ones included', async () => {
    const indexes = [...fetched.values()].filter((f) => f.parsed.kind === 'sitemapindex');
    expect(indexes.length).toBeGreaterThan(0);
    for (const { parsed } of indexes) {
      const children = await Promise.all(
        parsed.entries.map(async (child) => {
          const res = await get(child.loc);
          return parseSitemap(res.body, {
            sitemapUrl: child.loc,
            scopeUrl: new URL('/robots.txt', child.loc).href,
          });
        }),
      );
      expect(children.map((c) => c.kind)).toEqual(['urlset', 'urlset', 'urlset']);
      for (const c of children) {
        expect(c.errors).toEqual([]);
        expect(c.entries.length).toBeGreaterThan(0);
      }
    }
  });

  it("flags, but keeps, pages outside a child sitemap's directory when no wider scope is given", async () => {
    const child = web.manifest().sitemaps.find((u) => u.includes('/sitemaps/part-1.xml.gz'));
    expect(child).toBeDefined();
    const strict = await parseSitemap((await get(String(child))).body, { sitemapUrl: child });
    expect(strict.entries).toEqual(fetched.get(String(child))?.parsed.entries);
    expect(strict.errors.length).toBeGreaterThan(0);
    expect(strict.errors.every((e) => e.startsWith("loc outside the sitemap's path (kept)"))).toBe(
      true,
    );
  });

  it('finds every sitemap named in robots.txt `Sitemap:` lines and recognises each response', async () => {
    const sitemaps = new Set(web.manifest().sitemaps);
    let named = 0;
    for (const h of web.hosts) {
      if (h.robotsTxt === null) continue;
      const robotsUrl = `http://${h.host}:${web.port}/robots.txt`;
      for (const url of parseRobots(h.robotsTxt, robotsUrl, 'crawlerbot').sitemaps) {
        named++;
        expect(sitemaps.has(url), url).toBe(true);
        const f = fetched.get(url);
        expect(f, url).toBeDefined();
        const type = String(f?.res.headers['content-type'] ?? '');
        expect(looksLikeSitemap(url, type, f?.res.body.subarray(0, 4096) ?? new Uint8Array())).toBe(
          true,
        );
      }
    }
    expect(named).toBeGreaterThan(0);
  });

  it("keeps the malformed host's one complete entry and reports the damage", () => {
    const bad = [...fetched].filter(([u]) => new URL(u).hostname === malformedHost());
    expect(bad).toHaveLength(1);
    const [url, { parsed }] = bad[0] ?? ['', { parsed: null }];
    expect(parsed?.entries.map((e) => e.loc)).toEqual([new URL('/', url).href]);
    expect(parsed?.entries[0]?.lastmod).toBeNull();
    expect(parsed?.errors.some((e) => e.startsWith('xml: '))).toBe(true);
    expect(parsed?.errors.some((e) => e.includes('invalid lastmod'))).toBe(true);
  });
});
