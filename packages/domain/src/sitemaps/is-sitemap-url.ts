/** Last path segments that name a sitemap: `*.xml`, `*.xml.gz`, `sitemap*.txt` (any case). */
const SITEMAP_FILE = /(?:\.xml|\.xml\.gz|^sitemap[^/]*\.txt)$/i;

/**
 * True when a URL's shape says it is a sitemap document: its last path segment is `*.xml`,
 * `*.xml.gz` or `sitemap*.txt`. Used to tell sitemap seeds from page seeds before anything is
 * fetched (a seed whose URL says nothing is still expanded when its body turns out to be a
 * sitemap: {@link looksLikeSitemap}). The query is ignored (`/sitemap.xml?page=2` counts). Never
 * throws: a string that is not an absolute URL is not a sitemap URL.
 */
export function isSitemapUrl(url: string): boolean {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return false;
  }
  const last = path.slice(path.lastIndexOf('/') + 1);
  return SITEMAP_FILE.test(last);
}
