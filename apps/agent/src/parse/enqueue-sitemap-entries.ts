import type { EnqueueUrl, LeasedUrl } from '@crawler/frontier';
import { parseSitemap, priorityFromLastmod } from '@crawler/shared/sitemaps';
import { normalizeUrl, urlFingerprint } from '@crawler/shared/url';
import type { AgentResources } from '../agent-resources';

/**
 * A fetched sitemap document: an index's children go back to the frontier as sitemap documents;
 * a urlset's (or text sitemap's) pages are enqueued with a priority from their lastmod.
 * Malformed parts are skipped (the parser never throws).
 */
export async function enqueueSitemapEntries(
  r: AgentResources,
  entry: LeasedUrl,
  body: Uint8Array,
): Promise<void> {
  const parsed = await parseSitemap(body, {
    sitemapUrl: entry.url,
    scopeUrl: new URL('/robots.txt', entry.url).href,
  });
  const now = new Date();
  const urls: EnqueueUrl[] = [];
  for (const e of parsed.entries) {
    const n = normalizeUrl(e.loc);
    if (!n.ok) continue;
    urls.push(
      parsed.kind === 'sitemapindex'
        ? {
            url: n.url,
            urlFp: urlFingerprint(n.url),
            host: n.host,
            depth: entry.depth,
            priority: 0,
            source: 'sitemap-file',
          }
        : {
            url: n.url,
            urlFp: urlFingerprint(n.url),
            host: n.host,
            depth: entry.depth,
            priority: priorityFromLastmod(e.lastmod, now),
            source: 'sitemap',
          },
    );
  }
  if (parsed.errorCount > 0)
    r.log.debug(
      { url: entry.url, errors: parsed.errors.slice(0, 3), count: parsed.errorCount },
      'sitemap had problems',
    );
  await r.links.add(urls);
}
