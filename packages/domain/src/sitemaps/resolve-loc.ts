import type { SitemapKind } from './parse-sitemap.types';

/**
 * Longest `<loc>` accepted, in characters. The protocol says "less than 2,048"; the crawler's
 * trap rules allow URLs up to 2,048, so we keep that bound here too.
 */
export const LOC_MAX_CHARS = 2048;

/** Where a sitemap lives and which URLs it may list (protocol: its own host and directory). */
export interface SitemapScope {
  /** The sitemap's URL, for resolving relative locs. */
  base: URL;
  /** `scheme://host[:port]` locs must have. */
  origin: string;
  /** The directory locs must be under, e.g. `/catalog/` for `/catalog/sitemap.xml`. */
  dir: string;
}

/** A valid loc (possibly outside the sitemap's scope), or why it was rejected. */
export type ResolvedLoc =
  { ok: true; url: string; outOfScope: 'host' | 'path' | null } | { ok: false; reason: string };

/**
 * The scope of a sitemap fetched from `sitemapUrl`: locs resolve against it and must lie
 * under the host and directory of `scopeUrl` (default: `sitemapUrl` itself). Null when
 * `sitemapUrl` is not an absolute http(s) URL; an unusable `scopeUrl` is ignored. Never throws.
 */
export function sitemapScope(sitemapUrl: string, scopeUrl?: string): SitemapScope | null {
  const base = parseHttpUrl(sitemapUrl, undefined);
  if (base === null) return null;
  const bound = (scopeUrl === undefined ? null : parseHttpUrl(scopeUrl, undefined)) ?? base;
  return {
    base,
    origin: bound.origin,
    dir: bound.pathname.slice(0, bound.pathname.lastIndexOf('/') + 1),
  };
}

/**
 * Validates one loc: trimmed, at most {@link LOC_MAX_CHARS} characters, absolute http(s) —
 * a relative loc is resolved against `scope.base` when there is a scope and `kind` is XML
 * (a line of a text sitemap must be a full URL: resolving arbitrary text would turn any
 * garbage line into a URL). Returns the WHATWG-serialized URL and whether it lies outside
 * the sitemap's host or, for urlsets and text sitemaps, its directory (an index may list
 * sitemaps anywhere on its host). Such locs are kept: the frontier decides.
 */
export function resolveLoc(
  raw: string,
  scope: SitemapScope | null,
  kind: SitemapKind,
): ResolvedLoc {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'empty loc' };
  if (text.length > LOC_MAX_CHARS) {
    return { ok: false, reason: `loc longer than ${LOC_MAX_CHARS} chars` };
  }
  const url = parseHttpUrl(text, kind === 'text' ? undefined : scope?.base);
  if (url === null) return { ok: false, reason: 'loc is not an absolute http(s) URL' };
  let outOfScope: 'host' | 'path' | null = null;
  if (scope !== null && url.origin !== scope.origin) outOfScope = 'host';
  else if (scope !== null && kind !== 'sitemapindex' && !url.pathname.startsWith(scope.dir))
    outOfScope = 'path';
  return { ok: true, url: url.href, outOfScope };
}

/** `new URL(text, base)` when it is http(s) with a host, else null. */
function parseHttpUrl(text: string, base: URL | undefined): URL | null {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.hostname === '' ? null : url;
}
