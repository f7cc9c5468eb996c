import { describe, expect, it } from 'vitest';
import { pageLinks } from './page-links.js';

describe('pageLinks', () => {
  it('resolves every <a href> against the page URL, entities decoded, in order', () => {
    const html =
      `<a href="p7.html">x</a> <a href='/b?x=1&amp;y=2#f'>y</a>` +
      `<a class="c" href="HTTP://S0001.WEB.TEST:80/">z</a><a href="mailto:a@b">m</a>`;
    expect(pageLinks(html, 'http://s0000.web.test:8080/news/p1.html')).toEqual([
      'http://s0000.web.test:8080/news/p7.html',
      'http://s0000.web.test:8080/b?x=1&y=2#f',
      'http://s0001.web.test/',
      'mailto:a@b',
    ]);
  });

  it('resolves relative links against the first <base href>', () => {
    const html = `<head><base href="/blog/archive/"></head><a href="../p3.html">x</a>`;
    expect(pageLinks(html, 'http://s0000.web.test:8080/guides/item-9/')).toEqual([
      'http://s0000.web.test:8080/blog/p3.html',
    ]);
  });
});
