import type { LeasedUrl } from '@crawler/frontier';
import { isSitemapUrl, looksLikeSitemap, sniffSitemapHead } from '@crawler/domain/sitemaps';

const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);
/** Bytes of a body looked at to tell what it is (a gzip head is partly inflated). */
const HEAD_BYTES = 64 * 1024;

/**
 * Whether a fetched 2xx response is a sitemap to expand rather than a page:
 * - a sitemap document by origin (`sitemap-file`: a robots.txt `Sitemap:` line, an index's
 *   entry, a seed submitted with `sitemap: true`) or a seed whose URL names a sitemap
 *   (`isSitemapUrl`: `*.xml`, `*.xml.gz`, `sitemap*.txt`) is one, unless it is plainly an HTML
 *   page (an HTML type and an HTML head), which is then parsed as a page;
 * - any other seed, or a redirect target (a sitemap seed moved to https), is one when its
 *   body looks like a sitemap ({@link looksLikeSitemap}); responses typed HTML are not
 *   sniffed, so pages cost nothing here;
 * - anything else (links, sitemap-listed pages, re-crawls) is not.
 */
export function isSitemapDocument(
  entry: Pick<LeasedUrl, 'url' | 'source'>,
  res: { status: number; contentType: string; body: Uint8Array },
): boolean {
  if (res.status < 200 || res.status >= 300) return false;
  const html = HTML_TYPES.has(res.contentType);
  if (entry.source === 'sitemap-file' || (entry.source === 'seed' && isSitemapUrl(entry.url)))
    return !html || sniffSitemapHead(res.body.subarray(0, HEAD_BYTES)) !== 'html';
  if (entry.source !== 'seed' && entry.source !== 'redirect') return false;
  return !html && looksLikeSitemap(entry.url, res.contentType, res.body.subarray(0, HEAD_BYTES));
}
