import { describe, expect, it } from 'vitest';
import { isSitemapUrl } from './is-sitemap-url';

describe('isSitemapUrl', () => {
  it('recognises *.xml, *.xml.gz and sitemap*.txt, whatever the case or query', () => {
    for (const url of [
      'https://ex.com/sitemap.xml',
      'https://ex.com/sitemap_index.xml',
      'https://ex.com/catalog/products-1.XML',
      'https://ex.com/sitemaps/part-1.xml.gz',
      'https://ex.com/sitemap.txt',
      'https://ex.com/a/Sitemap-news.TXT',
      'https://ex.com/sitemap.xml?page=2',
    ])
      expect(isSitemapUrl(url), url).toBe(true);
  });

  it('leaves pages, other text files and non-URLs alone', () => {
    for (const url of [
      'https://ex.com/',
      'https://ex.com/sitemap',
      'https://ex.com/sitemap.html',
      'https://ex.com/notes/readme.txt',
      'https://ex.com/sitemap.txt/page',
      'https://ex.com/archive.gz',
      'https://ex.com/page?file=sitemap.xml',
      'not a url',
      '',
    ])
      expect(isSitemapUrl(url), url).toBe(false);
  });
});
