import { sniffSitemapHead } from './sniff-sitemap-head';

/** Content types a sitemap is served with (XML, gzip, plain text, or unlabelled). */
const SITEMAP_TYPES: ReadonlySet<string> = new Set([
  '',
  'application/xml',
  'text/xml',
  'application/gzip',
  'application/x-gzip',
  'application/octet-stream',
  'text/plain',
]);
/** Types that can carry a plain-text sitemap. */
const TEXT_TYPES: ReadonlySet<string> = new Set(['', 'text/plain', 'application/octet-stream']);
/** Sitemap-like file names: `.xml`, `.xml.gz`, `.txt`, `.gz`. */
const SITEMAP_EXT = /\.(?:xml|xml\.gz|txt|gz)$/;

/**
 * True when a fetched response looks like a sitemap (for responses the crawler met without
 * knowing: a link, a seed). URLs that came from a robots.txt `Sitemap:` line or a sitemap
 * index ARE sitemaps by origin — hand those to `parseSitemap` without asking.
 *
 * The head decides first: a `urlset` / `sitemapindex` root (gzip heads are partly inflated)
 * is a sitemap whatever the URL or type; an HTML page or another XML root (RSS, Atom) is
 * not. Otherwise the URL must name a sitemap (`sitemap` in its path, e.g. `sitemap*.xml`,
 * `/sitemaps/part-1.xml.gz`, `sitemap.txt`): URL lines need a text type, an undecided head
 * an XML, gzip or text type or file name.
 *
 * @param url the final URL of the response.
 * @param contentType the Content-Type header value (`''` when absent).
 * @param head the first bytes of the body (a few KiB are enough; more are not read).
 */
export function looksLikeSitemap(url: string, contentType: string, head: Uint8Array): boolean {
  const sniffed = sniffSitemapHead(head);
  if (sniffed === 'urlset' || sniffed === 'sitemapindex') return true;
  if (sniffed === 'html' || sniffed === 'xml-other') return false;
  const path = pathOf(url);
  if (!path.includes('sitemap')) return false;
  const type = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  if (sniffed === 'url-lines') return TEXT_TYPES.has(type);
  if (sniffed === 'xml-no-root') return true;
  return SITEMAP_TYPES.has(type) || (type !== 'text/html' && SITEMAP_EXT.test(path));
}

/** The lowercased path of `url`, or `''` when it does not parse. */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname.toLowerCase();
  } catch {
    return '';
  }
}
