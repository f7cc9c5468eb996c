import { describe, expect, it } from 'vitest';
import type { SiteInfo } from '../types.js';
import { classifyFetch, type FetchClassInput } from './classify.js';

const site = (features: string[]): SiteInfo => ({
  index: 0,
  host: 'a.test',
  ip: '127.1.1.1',
  kind: 'normal',
  robots: 'ok',
  crawlDelayS: null,
  pages: 10,
  features,
  robotsTxt: 'User-agent: *\nDisallow: /private/\n',
});

const A = 'http://a.test:8080';
const expected = new Set([
  `${A}/`,
  `${A}/news/p1.html`,
  `${A}/about?lang=en&page=16`,
  `${A}/archive?page=3`,
  `${A}/catalog`,
]);

function classify(canonical: string | null, more: Partial<FetchClassInput> = {}) {
  return classifyFetch({
    canonical,
    status: 200,
    site: site(['soft-404']),
    repeat: false,
    allowed: true,
    expected,
    sitemaps: new Set([`${A}/sitemap.xml`]),
    ...more,
  });
}

describe('classifyFetch', () => {
  it('useful: a manifest URL fetched for the first time, whatever the answer', () => {
    expect(classify(`${A}/news/p1.html`)).toEqual({ cls: 'useful' });
    expect(classify(`${A}/archive?page=3`)).toEqual({ cls: 'useful' });
    expect(classify(`${A}/catalog`, { status: 404 })).toEqual({ cls: 'useful' });
  });

  it('trap: each family by its URL', () => {
    const cases: Array<[string, string]> = [
      ['/events?month=2024-01', 'calendar'],
      ['/cal/2024-01-15/', 'calendar'],
      ['/diary/2024/01/15.html', 'calendar'],
      ['/calendar/2024/01', 'calendar'],
      ['/archive?page=4', 'pager'],
      ['/archive/page/9/', 'pager'],
      ['/catalog?color=red&size=m', 'facet'],
      ['/news/p1.html;jsessionid=ABC', 'session'],
      ['/shop?sid=1f', 'session'],
      ['/legacy/1234.html', 'soft-404'],
      ['/loop/a/a/', 'loop'],
    ];
    for (const [path, family] of cases)
      expect(classify(`${A}${path}`), path).toEqual({ cls: 'trap', family });
  });

  it('trap before repeat: a second fetch of a trap URL is still a trap', () => {
    expect(classify(`${A}/legacy/1.html`, { repeat: true })).toEqual({
      cls: 'trap',
      family: 'soft-404',
    });
  });

  it('variant: a no-op parameter variant of a manifest URL', () => {
    expect(classify(`${A}/news/p1.html?print=1`)).toEqual({ cls: 'variant', variant: 'noop' });
    expect(classify(`${A}/about?lang=en&page=16&ref=nav`)).toEqual({
      cls: 'variant',
      variant: 'noop',
    });
    expect(classify(`${A}/?sort=asc&view=full`)).toEqual({ cls: 'variant', variant: 'noop' });
    // Without a manifest URL behind it, a print parameter is not a variant.
    expect(classify(`${A}/article.html?print=1`).cls).toBe('other');
  });

  it('variant: a repeat of a settled URL', () => {
    expect(classify(`${A}/news/p1.html`, { repeat: true })).toEqual({
      cls: 'variant',
      variant: 'repeat',
    });
    expect(classify(`${A}/sitemap.xml`, { repeat: true })).toEqual({
      cls: 'variant',
      variant: 'repeat',
    });
  });

  it('other: unknown hosts, unparsable URLs, sitemaps and unlinked pages', () => {
    expect(classify(`${A}/news/p1.html`, { site: undefined })).toEqual({ cls: 'other' });
    expect(classify(null)).toEqual({ cls: 'other' });
    expect(classify(`${A}/sitemap.xml`)).toEqual({ cls: 'other' });
    expect(classify(`${A}/nothing-here`, { site: site([]) })).toEqual({ cls: 'other' });
  });

  it('probe: an unlinked path answered 200 on a soft-404 host', () => {
    expect(classify(`${A}/zq81x-probe`)).toEqual({ cls: 'other', probe: true });
    expect(classify(`${A}/zq81x-probe`, { status: 404 })).toEqual({ cls: 'other' });
    expect(classify(`${A}/private/x.html`, { allowed: false })).toEqual({ cls: 'other' });
    expect(classify(`${A}/zq81x-probe`, { site: site([]) })).toEqual({ cls: 'other' });
  });
});
