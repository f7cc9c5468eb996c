import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { looksLikeSitemap } from './looks-like-sitemap';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const URLSET =
  '<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url>';

describe('looksLikeSitemap', () => {
  it('trusts a sitemap root in the head, whatever the URL or type', () => {
    expect(looksLikeSitemap('https://ex.com/feed', 'text/html', bytes(URLSET))).toBe(true);
    expect(looksLikeSitemap('https://ex.com/x', '', bytes('<sitemapindex><sitemap>'))).toBe(true);
    expect(
      looksLikeSitemap('https://ex.com/x', 'application/xml', bytes('<sm:urlset xmlns:sm="x">')),
    ).toBe(true);
    const commented = '\uFEFF<?xml version="1.0"?><!-- <html> --><!DOCTYPE x><urlset>';
    expect(looksLikeSitemap('https://ex.com/x', '', bytes(commented))).toBe(true);
  });

  it('looks inside gzip heads, even cut ones', () => {
    const gz = gzipSync(URLSET + '<url><loc>https://ex.com/</loc></url>'.repeat(5000));
    expect(
      looksLikeSitemap('https://ex.com/a.bin', 'application/octet-stream', gz.subarray(0, 200)),
    ).toBe(true);
    const html = gzipSync('<!DOCTYPE html><html>');
    expect(looksLikeSitemap('https://ex.com/sitemap.xml.gz', 'application/gzip', html)).toBe(false);
  });

  it('rejects HTML and other XML documents, even at sitemap URLs', () => {
    expect(
      looksLikeSitemap('https://ex.com/sitemap.xml', 'text/html', bytes('<!doctype html><html>')),
    ).toBe(false);
    expect(
      looksLikeSitemap(
        'https://ex.com/sitemap.xml',
        'application/xml',
        bytes('<?xml version="1.0"?><rss>'),
      ),
    ).toBe(false);
    expect(looksLikeSitemap('https://ex.com/sitemap', 'text/html', bytes('<HTML><body>'))).toBe(
      false,
    );
  });

  it('accepts URL lines at a sitemap URL served as text', () => {
    const lines = bytes('https://ex.com/a\nhttps://ex.com/b\n');
    expect(looksLikeSitemap('https://ex.com/sitemap.txt', 'text/plain; charset=utf-8', lines)).toBe(
      true,
    );
    expect(looksLikeSitemap('https://ex.com/urls.txt', 'text/plain', lines)).toBe(false);
    expect(looksLikeSitemap('https://ex.com/sitemap.txt', 'text/html', lines)).toBe(false);
  });

  it('falls back on the URL when the head says nothing yet', () => {
    expect(looksLikeSitemap('https://ex.com/sitemap_index.xml', 'application/xml', bytes(''))).toBe(
      true,
    );
    expect(looksLikeSitemap('https://ex.com/sitemaps/part-1.xml.gz', '', bytes(''))).toBe(true);
    expect(
      looksLikeSitemap(
        'https://ex.com/Sitemap-Products.XML',
        'text/xml',
        bytes('<?xml version="1.0"?>'),
      ),
    ).toBe(true);
    expect(looksLikeSitemap('https://ex.com/page.xml', 'application/xml', bytes(''))).toBe(false);
    expect(looksLikeSitemap('https://ex.com/sitemap.html', 'text/html', bytes(''))).toBe(false);
    expect(looksLikeSitemap('not a url', 'application/xml', bytes(''))).toBe(false);
  });
});
