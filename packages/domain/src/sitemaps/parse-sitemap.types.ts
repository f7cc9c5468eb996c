/** One `<url>` of a urlset, one `<sitemap>` of a sitemap index, or one line of a text sitemap. */
export interface SitemapEntry {
  /** Absolute http(s) URL (WHATWG-serialized; relative locs resolved against the sitemap URL). */
  loc: string;
  /** `<lastmod>` as an instant (a date-only value is midnight UTC), or null when absent/invalid. */
  lastmod: Date | null;
  /** `<changefreq>` lowercased (`always` … `never`), or null when absent/invalid. */
  changefreq: string | null;
  /** `<priority>` in [0, 1], or null when absent/invalid. */
  priority: number | null;
}

/** Which format the body was: an XML urlset, an XML sitemap index, or one URL per line. */
export type SitemapKind = 'urlset' | 'sitemapindex' | 'text';

/** Why parsing stopped early: too many entries, or too many bytes after decompression. */
export type SitemapTruncation = 'max_urls' | 'max_bytes';

/** What {@link parseSitemap} found. */
export interface ParsedSitemap {
  /** Format detected; `urlset` when the body is XML but not a sitemap (then `errors` says why). */
  kind: SitemapKind;
  /** urlset/text: pages; sitemapindex: child sitemaps. In document order, not deduplicated. */
  entries: SitemapEntry[];
  /** Null when the whole body was read; otherwise the limit that stopped it. */
  truncated: SitemapTruncation | null;
  /** The first 20 problems (malformed parts skipped, invalid fields, out-of-scope locs). */
  errors: string[];
  /** How many problems there were in all (`errors` keeps only the first 20). */
  errorCount: number;
}

/** Options of {@link parseSitemap}. */
export interface ParseSitemapOptions {
  /** Most entries kept (default 50,000, the protocol limit); more set `truncated: 'max_urls'`. */
  maxUrls?: number;
  /** Most bytes read after decompression (default 52,428,800 = 50 MiB, the protocol limit). */
  maxBytes?: number;
  /**
   * Absolute URL the sitemap was fetched from: resolves relative locs and scopes entries
   * (without it neither is done).
   */
  sitemapUrl?: string;
  /**
   * Widens the scope check (used only with `sitemapUrl`): locs must lie under this URL's
   * host and directory instead of the sitemap's own. Pass the robots.txt URL for a sitemap
   * named in (or reached through an index named in) robots.txt `Sitemap:` lines — the
   * protocol lets those list the whole host, so `/sitemaps/part-1.xml` may list `/products/…`.
   */
  scopeUrl?: string;
}

/** The raw text of one entry's fields, before validation. */
export interface RawSitemapEntry {
  loc: string | null;
  lastmod: string | null;
  changefreq: string | null;
  priority: string | null;
}
