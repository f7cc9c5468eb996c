export { parseSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from './parse-sitemap';
export type {
  ParsedSitemap,
  ParseSitemapOptions,
  SitemapEntry,
  SitemapKind,
  SitemapTruncation,
} from './parse-sitemap.types';
export { looksLikeSitemap } from './looks-like-sitemap';
export { isSitemapUrl } from './is-sitemap-url';
export { sniffSitemapHead, type HeadKind } from './sniff-sitemap-head';
export { priorityFromLastmod, type RecrawlTier } from './priority-from-lastmod';
export { parseLastmod } from './parse-lastmod';
export { LOC_MAX_CHARS } from './resolve-loc';
