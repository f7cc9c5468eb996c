import {
  parseSitemap,
  type ParsedSitemap,
  type ParseSitemapOptions,
} from '@crawler/domain/sitemaps';

/** A fetched sitemap document to parse off the event loop. */
export interface SitemapTaskInput {
  body: Uint8Array;
  options: ParseSitemapOptions;
}

/** `parseSitemap` in a parse-pool worker (XML or text, gzip inflated, limits applied). */
export function sitemapTask(input: SitemapTaskInput): Promise<ParsedSitemap> {
  return parseSitemap(input.body, input.options);
}
