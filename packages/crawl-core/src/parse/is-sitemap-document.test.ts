import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { UrlSource } from '@crawler/frontier';
import { isSitemapDocument } from './is-sitemap-document';

const URLSET = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">';
const HTML = '<!doctype html><html><head><title>x</title></head><body></body></html>';
const body = (s: string) => Buffer.from(s);
const is = (
  source: UrlSource,
  url: string,
  contentType: string,
  text: string | Buffer,
  status = 200,
) =>
  isSitemapDocument(
    { source, url },
    { status, contentType, body: typeof text === 'string' ? body(text) : text },
  );

describe('isSitemapDocument', () => {
  it('takes sitemap documents by origin, unless they are plainly HTML pages', () => {
    expect(is('sitemap-file', 'http://a.test/x', 'application/xml', URLSET)).toBe(true);
    expect(is('sitemap-file', 'http://a.test/x', 'text/plain', 'not even a URL')).toBe(true);
    expect(is('sitemap-file', 'http://a.test/x', 'text/html', URLSET)).toBe(true);
    expect(is('sitemap-file', 'http://a.test/x.xml', 'text/html', HTML)).toBe(false);
    expect(is('sitemap-file', 'http://a.test/x', 'application/xml', URLSET, 404)).toBe(false);
  });

  it('takes a seed whose URL names a sitemap, or whose body is one', () => {
    expect(
      is('seed', 'http://a.test/sitemap.xml', 'application/xml', '<?xml version="1.0"?>'),
    ).toBe(true);
    expect(is('seed', 'http://a.test/feed.xml', 'text/html', HTML)).toBe(false);
    expect(is('seed', 'http://a.test/list', 'application/xml', URLSET)).toBe(true);
    expect(is('seed', 'http://a.test/list', 'application/octet-stream', gzipSync(URLSET))).toBe(
      true,
    );
    expect(
      is('seed', 'http://a.test/sitemap', 'text/plain', 'http://a.test/1\nhttp://a.test/2'),
    ).toBe(true);
    expect(is('seed', 'http://a.test/', 'text/html', HTML)).toBe(false);
    expect(is('seed', 'http://a.test/data.json', 'application/json', '{"a":1}')).toBe(false);
  });

  it('sniffs redirect targets, and never links, sitemap pages or re-crawls', () => {
    expect(is('redirect', 'https://a.test/sitemap.xml', 'application/xml', URLSET)).toBe(true);
    expect(is('redirect', 'https://a.test/sitemap.xml', 'text/html', HTML)).toBe(false);
    for (const source of ['link', 'sitemap', 'recrawl'] as const)
      expect(is(source, 'http://a.test/sitemap.xml', 'application/xml', URLSET), source).toBe(
        false,
      );
  });
});
