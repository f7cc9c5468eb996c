import type { ParsedSitemap, ParseSitemapOptions } from '@crawler/domain/sitemaps';

/** A fetched sitemap document to parse off the event loop. */
export interface SitemapTaskInput {
  body: Uint8Array;
  options: ParseSitemapOptions;
}

/**
 * `parseSitemap` in a parse-pool worker (XML or text, gzip inflated, limits applied). The parser
 * is loaded at a worker's first sitemap: most tasks are pages, and a worker's heap stays small.
 */
export async function sitemapTask(input: SitemapTaskInput): Promise<ParsedSitemap> {
  const { parseSitemap } = await import('@crawler/domain/sitemaps');
  return parseSitemap(input.body, input.options);
}
