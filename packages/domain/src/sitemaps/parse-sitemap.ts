import { EntryCollector } from './collect-entries';
import { createSitemapReader } from './create-sitemap-reader';
import type { ParsedSitemap, ParseSitemapOptions } from './parse-sitemap.types';
import { readBodyChunks } from './read-body-chunks';
import { sitemapScope, type SitemapScope } from './resolve-loc';

/** Most entries one sitemap may hold (sitemaps.org protocol). */
export const SITEMAP_MAX_URLS = 50_000;

/** Most bytes one sitemap may hold after decompression: 50 MiB (sitemaps.org protocol). */
export const SITEMAP_MAX_BYTES = 52_428_800;

/**
 * Parses a sitemap body (already fetched; HTTP content-coding already removed).
 *
 * - gzip is detected by its magic bytes (1f 8b) and inflated streaming; `maxBytes` (default
 *   50 MiB) counts bytes AFTER decompression, so a gzip bomb stops at the cap with bounded
 *   memory (one 64 KiB chunk and one line or tag at a time).
 * - XML `urlset` / `sitemapindex` (namespace-tolerant, case-sensitive names, CDATA, the five
 *   XML entities and character references decoded; a DTD is never expanded, so entity bombs
 *   do nothing) or a plain-text sitemap (one URL per line); UTF-8, a BOM allowed.
 * - At most `maxUrls` (default 50,000) entries; past that `truncated: 'max_urls'`.
 * - Malformed XML: parsing stops at the first error, entries before it are kept, the error
 *   is reported.
 * - Each loc must be an absolute http(s) URL of at most 2,048 chars; relative locs are
 *   resolved against `sitemapUrl` when given. Locs outside the sitemap's host (or, for
 *   urlsets and text, its directory; see `scopeUrl`) are kept and reported in `errors`:
 *   the frontier decides.
 *
 * Never throws on bad input; rejects only with a RangeError for invalid `maxUrls`/`maxBytes`.
 */
export async function parseSitemap(
  body: Uint8Array,
  opts: ParseSitemapOptions = {},
): Promise<ParsedSitemap> {
  const maxUrls = positiveInt('maxUrls', opts.maxUrls ?? SITEMAP_MAX_URLS);
  const maxBytes = positiveInt('maxBytes', opts.maxBytes ?? SITEMAP_MAX_BYTES);
  let scope: SitemapScope | null = null;
  const bad: string[] = [];
  if (opts.sitemapUrl !== undefined) {
    scope = sitemapScope(opts.sitemapUrl, opts.scopeUrl);
    if (scope === null) bad.push('sitemapUrl is not an absolute http(s) URL; ignored');
  }
  if (opts.scopeUrl !== undefined && sitemapScope(opts.scopeUrl) === null) {
    bad.push('scopeUrl is not an absolute http(s) URL; ignored');
  }
  const collector = new EntryCollector(maxUrls, scope);
  for (const message of bad) collector.error(message);
  const reader = createSitemapReader(collector);
  const decoder = createBodyDecoder();
  try {
    const outcome = await readBodyChunks(body, maxBytes, (bytes) =>
      reader.push(decoder.decode(bytes)),
    );
    if (outcome.error !== null) collector.error(outcome.error);
    if (outcome.truncated) collector.truncate('max_bytes');
    if (outcome.truncated || outcome.error !== null) reader.abort();
    else {
      const tail = decoder.flush();
      if (tail === '' || reader.push(tail)) reader.end();
    }
  } catch (err) {
    collector.error(`internal: ${err instanceof Error ? err.message : 'unknown failure'}`);
    reader.abort();
  }
  return collector.result();
}

/**
 * A streaming text decoder: UTF-8 unless the body starts with a UTF-16 byte-order mark
 * (chosen on the first chunk); a BOM is dropped; invalid bytes become U+FFFD.
 */
function createBodyDecoder(): { decode(bytes: Uint8Array): string; flush(): string } {
  let decoder: InstanceType<typeof TextDecoder> | null = null;
  return {
    decode(bytes) {
      decoder ??= new TextDecoder(encodingOf(bytes));
      return decoder.decode(bytes, { stream: true });
    },
    flush() {
      return decoder === null ? '' : decoder.decode();
    },
  };
}

function encodingOf(head: Uint8Array): string {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

function positiveInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
}
