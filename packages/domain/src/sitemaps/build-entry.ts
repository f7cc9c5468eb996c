import { parseChangefreq, parsePriority } from './parse-crawl-hints';
import { parseLastmod } from './parse-lastmod';
import type { RawSitemapEntry, SitemapEntry, SitemapKind } from './parse-sitemap.types';
import { resolveLoc, type SitemapScope } from './resolve-loc';

/** Longest value quoted in an error message, in characters. */
const QUOTE_MAX_CHARS = 120;

/** An entry (null when its loc is unusable) and the problems found in it. */
export interface BuiltEntry {
  entry: SitemapEntry | null;
  problems: string[];
}

/**
 * Validates the raw fields of one entry. An unusable loc drops the entry; an invalid
 * lastmod, changefreq or priority only nulls that field; a loc outside the sitemap's
 * host (any kind) or directory (urlset and text) is kept and reported. Index entries carry
 * only loc and lastmod, as the protocol defines.
 */
export function buildEntry(
  raw: RawSitemapEntry,
  kind: SitemapKind,
  scope: SitemapScope | null,
): BuiltEntry {
  const problems: string[] = [];
  if (raw.loc === null) return { entry: null, problems: ['entry without <loc> skipped'] };
  const loc = resolveLoc(raw.loc, scope, kind);
  if (!loc.ok) return { entry: null, problems: [`${loc.reason}: ${quote(raw.loc)}`] };
  if (loc.outOfScope !== null) {
    problems.push(`loc outside the sitemap's ${loc.outOfScope} (kept): ${quote(loc.url)}`);
  }
  const lastmod = raw.lastmod === null ? null : parseLastmod(raw.lastmod);
  if (raw.lastmod !== null && lastmod === null) {
    problems.push(`invalid lastmod ${quote(raw.lastmod)} for ${quote(loc.url)}`);
  }
  let changefreq: string | null = null;
  let priority: number | null = null;
  if (kind !== 'sitemapindex') {
    changefreq = raw.changefreq === null ? null : parseChangefreq(raw.changefreq);
    if (raw.changefreq !== null && changefreq === null) {
      problems.push(`invalid changefreq ${quote(raw.changefreq)} for ${quote(loc.url)}`);
    }
    priority = raw.priority === null ? null : parsePriority(raw.priority);
    if (raw.priority !== null && priority === null) {
      problems.push(`invalid priority ${quote(raw.priority)} for ${quote(loc.url)}`);
    }
  }
  return { entry: { loc: loc.url, lastmod, changefreq, priority }, problems };
}

/** A value for an error message: JSON-quoted, cut to {@link QUOTE_MAX_CHARS}. */
export function quote(value: string): string {
  const v = value.trim();
  return JSON.stringify(v.length > QUOTE_MAX_CHARS ? `${v.slice(0, QUOTE_MAX_CHARS)}…` : v);
}
