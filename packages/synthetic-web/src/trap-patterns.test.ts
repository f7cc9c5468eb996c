import { describe, expect, it } from 'vitest';
import {
  hasNearNoopParam,
  hasNoopParam,
  hasSessionId,
  pagerPageOf,
  stripSessionPathParams,
  trapFamilyOfPathKey,
  withoutNoopParams,
} from './trap-patterns.js';

describe('trapFamilyOfPathKey', () => {
  it('names the family of every trap form', () => {
    const cases: Array<[string, string]> = [
      ['/calendar/2024/01', 'calendar'],
      ['/events?month=2024-01', 'calendar'],
      ['/cal/2024-01-15/', 'calendar'],
      ['/diary/2024/01/15.html', 'calendar'],
      ['/archive?page=4', 'pager'],
      ['/archive/page/4/', 'pager'],
      ['/archive?page=x', 'pager'],
      ['/catalog?color=red', 'facet'],
      ['/catalog?brand=acme&color=red&size=m', 'facet'],
      ['/news/p7.html;jsessionid=ABC123', 'session'],
      ['/;JSESSIONID=ABC123', 'session'],
      ['/guides/item-9/;phpsessid=f00?lang=en', 'session'],
      ['/shop?sid=1f', 'session'],
      ['/a?PHPSESSID=1', 'session'],
      ['/legacy/1234.html', 'soft-404'],
      ['/loop/a/a/', 'loop'],
    ];
    for (const [key, family] of cases) expect(trapFamilyOfPathKey(key), key).toBe(family);
  });

  it('leaves real pages alone, the pager up to page 3 and the catalog itself included', () => {
    for (const key of [
      '/',
      '/news/p7.html',
      '/products?lang=en&page=10',
      '/about?lang=en&page=150',
      '/archive?page=1',
      '/archive/page/3/',
      '/catalog',
      '/calendars.html',
      '/events',
      '/old/start.html',
      '/news/p7.html?print=1',
      '/a;version=2/b',
    ])
      expect(trapFamilyOfPathKey(key), key).toBeNull();
  });

  it('reads pager numbers', () => {
    expect(pagerPageOf('/archive?page=2')).toBe(2);
    expect(pagerPageOf('/archive/page/12/')).toBe(12);
    expect(pagerPageOf('/archive?page=0')).toBeNaN();
    expect(pagerPageOf('/products?lang=en&page=10')).toBeNull();
    expect(pagerPageOf('/archive')).toBeNull();
  });
});

describe('session ids', () => {
  it('strips session path parameters of any case, anywhere in the path, keeping the query', () => {
    expect(stripSessionPathParams('/news/p7.html;jsessionid=ABC')).toBe('/news/p7.html');
    expect(stripSessionPathParams('/;JSESSIONID=ABC?x=1')).toBe('/?x=1');
    expect(stripSessionPathParams('/a;sid=1/b/;sessionid=2')).toBe('/a/b/');
    expect(stripSessionPathParams('http://h:1/p;PhpSessId=9?q=;sid=1')).toBe(
      'http://h:1/p?q=;sid=1',
    );
    expect(stripSessionPathParams('/a;version=2/b')).toBe('/a;version=2/b');
  });

  it('finds session ids in paths and queries', () => {
    expect(hasSessionId('/p;sid=1')).toBe(true);
    expect(hasSessionId('/p?sessionid=1')).toBe(true);
    expect(hasSessionId('/p?side=1')).toBe(false);
    expect(hasSessionId('/p;side=1')).toBe(false);
  });
});

describe('no-op parameters', () => {
  it('removes print, ref, sort and view, keeping the other pairs in order', () => {
    expect(withoutNoopParams('/about?lang=en&page=16&ref=nav')).toBe('/about?lang=en&page=16');
    expect(withoutNoopParams('http://h:1/?print=1')).toBe('http://h:1/');
    expect(withoutNoopParams('/x?a=1&sort=asc&view=full&z=2')).toBe('/x?a=1&z=2');
    expect(withoutNoopParams('/x?lang=en')).toBe('/x?lang=en');
  });

  it('tells exact from near no-op parameters', () => {
    expect(hasNoopParam('/x?print=1')).toBe(true);
    expect(hasNoopParam('/x?printer=1')).toBe(false);
    expect(hasNearNoopParam('/x?print=1&ref=nav')).toBe(false);
    expect(hasNearNoopParam('/x?view=full')).toBe(true);
  });
});
