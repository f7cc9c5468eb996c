import { describe, expect, it } from 'vitest';
import { canonicalizeUrl, canonicalPathKey, canonicalQuery, isTrapUrl } from './canonical.js';

describe('canonicalizeUrl', () => {
  it('lowercases scheme and host, strips default port, fragment and trailing host dot', () => {
    expect(canonicalizeUrl('HTTP://S0001.WEB.TEST:80/a#top')).toBe('http://s0001.web.test/a');
    expect(canonicalizeUrl('http://s0001.web.test.:8080/a')).toBe('http://s0001.web.test:8080/a');
  });
  it('removes tracking parameters and sorts the rest', () => {
    expect(
      canonicalizeUrl('http://h/x?utm_source=a&page=2&fbclid=z&lang=en&gclid=q&UTM_Medium=m'),
    ).toBe('http://h/x?lang=en&page=2');
    expect(canonicalizeUrl('http://h/x?utm_source=a')).toBe('http://h/x');
    expect(canonicalQuery('?b=2&a=1&a=0')).toBe('?a=0&a=1&b=2');
  });
  it('resolves dot segments and relative references', () => {
    expect(canonicalizeUrl('/docs/../private/x', 'http://h:1/a/b.html')).toBe(
      'http://h:1/private/x',
    );
    expect(canonicalizeUrl('../x', 'http://h:1/a/b/c.html')).toBe('http://h:1/a/x');
    expect(canonicalizeUrl('//other:1/p', 'http://h:1/a')).toBe('http://other:1/p');
    expect(canonicalPathKey('/a/./b/../c?z=1&y=2')).toBe('/a/c?y=2&z=1');
  });
  it('rejects non-http schemes', () => {
    expect(canonicalizeUrl('mailto:x@y')).toBeNull();
    expect(canonicalizeUrl('javascript:void(0)')).toBeNull();
  });
});

describe('isTrapUrl', () => {
  it('matches calendar, loop and session-id URLs only', () => {
    expect(isTrapUrl('http://h/calendar/2024/01')).toBe(true);
    expect(isTrapUrl('http://h/loop/a/a/')).toBe(true);
    expect(isTrapUrl('http://h/shop?sid=abc')).toBe(true);
    expect(isTrapUrl('http://h/news?lang=en&page=2')).toBe(false);
    expect(isTrapUrl('http://h/calendars.html')).toBe(false);
  });
});
