import { describe, expect, it } from 'vitest';
import { parseRobots } from '@crawler/domain/robots';
import { directoryOf, entryScope, robotsNamesSitemap, type ScopedSitemap } from './sitemap-scope';

const rules = (text: string) => ({
  kind: 'rules' as const,
  rules: parseRobots(text, 'http://a.test/robots.txt', 'crawlerbot'),
});

describe('robotsNamesSitemap', () => {
  it('finds the sitemap among Sitemap: lines, comparing normalized URLs', () => {
    const state = rules(
      'User-agent: *\nDisallow: /private\nSitemap: HTTP://A.test:80/maps/Index.xml\nSitemap: http://cdn.test/a.xml\n',
    );
    expect(robotsNamesSitemap(state, 'http://a.test/maps/Index.xml')).toBe(true);
    expect(robotsNamesSitemap(state, 'http://cdn.test/a.xml')).toBe(true);
    expect(robotsNamesSitemap(state, 'http://a.test/maps/index.xml')).toBe(false);
    expect(robotsNamesSitemap(state, 'http://a.test/sitemap.xml')).toBe(false);
  });

  it('names nothing without rules (missing, failed or not cached robots.txt)', () => {
    expect(robotsNamesSitemap(null, 'http://a.test/sitemap.xml')).toBe(false);
    expect(robotsNamesSitemap({ kind: 'allow_all' }, 'http://a.test/sitemap.xml')).toBe(false);
    expect(
      robotsNamesSitemap({ kind: 'disallow_all', failures: 1 }, 'http://a.test/sitemap.xml'),
    ).toBe(false);
  });
});

describe('entryScope', () => {
  const sitemap: ScopedSitemap = {
    host: 'a.test',
    dir: directoryOf('http://a.test/catalog/sitemap.xml'),
    standing: { level: 0, ownHost: 'dir' },
  };
  const at = (url: string) => ({ url, host: new URL(url).hostname });
  const none = () => false;

  it('holds a sitemap to its directory, an index or a robots-named sitemap to its host', () => {
    expect(sitemap.dir).toBe('/catalog/');
    expect(entryScope(at('http://a.test/catalog/x'), sitemap, 'urlset', none)).toBe('own');
    expect(entryScope(at('http://a.test/catalogue'), sitemap, 'urlset', none)).toBe('out_of_scope');
    expect(entryScope(at('http://a.test/x'), sitemap, 'text', none)).toBe('out_of_scope');
    expect(entryScope(at('http://a.test/x.xml'), sitemap, 'sitemapindex', none)).toBe('own');
    const named = { ...sitemap, standing: { level: 0, ownHost: 'host' as const } };
    expect(entryScope(at('http://a.test/x'), named, 'urlset', none)).toBe('own');
  });

  it('lets another host in only when its robots.txt names the sitemap', () => {
    const asked: string[] = [];
    const names = (origin: string) => (asked.push(origin), origin === 'https://b.test');
    expect(entryScope(at('https://b.test/x'), sitemap, 'urlset', names)).toBe('foreign');
    expect(entryScope(at('http://c.test/catalog/x'), sitemap, 'urlset', names)).toBe('cross_host');
    expect(asked).toEqual(['https://b.test', 'http://c.test']);
  });
});
