import type { SitemapKind } from '@crawler/domain/sitemaps';
import { normalizeUrl } from '@crawler/domain/url';
import type { RobotsState } from '../robots/robots-cache';

/** Where a sitemap document stands: how it was reached, and so what it may list. */
export interface SitemapStanding {
  /** Sitemap indexes above it: 0 for a root (a seed, a robots.txt `Sitemap:` line), +1 per index. */
  level: number;
  /**
   * What it may list on its own host: any URL (`host`: its host's robots.txt names it, or it
   * was listed by an index that had `host`), or only URLs under its own directory (`dir`, the
   * sitemaps.org rule: `/catalog/sitemap.xml` lists `/catalog/…`).
   */
  ownHost: 'host' | 'dir';
}

/** A root the crawl met on its own (a seed, a redirect target): sitemaps.org's directory rule. */
export const ROOT_STANDING: Readonly<SitemapStanding> = { level: 0, ownHost: 'dir' };

/** The sitemap document whose entries are judged. */
export interface ScopedSitemap {
  /** Its host (`hostOf`: the frontier's unit; http and https of one host name are one host). */
  host: string;
  /** Its directory ({@link directoryOf} its URL). */
  dir: string;
  standing: SitemapStanding;
}

/**
 * Whether a sitemap may list an entry: `own` (its host, within its scope), `foreign` (another
 * host whose robots.txt names the sitemap), `out_of_scope` (its host, outside its directory)
 * or `cross_host` (another host that does not name it, or whose robots.txt is not known).
 * An index may list sitemaps anywhere on its own host (the protocol's rule for indexes).
 *
 * @param entry the entry's normalized URL and host.
 * @param foreignNames whether the robots.txt of `entry`'s origin names this sitemap; asked only
 *   for entries on other hosts.
 */
export function entryScope(
  entry: { url: string; host: string },
  sitemap: ScopedSitemap,
  kind: SitemapKind,
  foreignNames: (origin: string) => boolean,
): 'own' | 'foreign' | 'out_of_scope' | 'cross_host' {
  if (entry.host !== sitemap.host)
    return foreignNames(new URL(entry.url).origin) ? 'foreign' : 'cross_host';
  if (kind === 'sitemapindex' || sitemap.standing.ownHost === 'host') return 'own';
  return new URL(entry.url).pathname.startsWith(sitemap.dir) ? 'own' : 'out_of_scope';
}

/** The directory a sitemap URL lives in, with its trailing slash (`/catalog/` for `/catalog/s.xml`). */
export function directoryOf(url: string): string {
  const path = new URL(url).pathname;
  return path.slice(0, path.lastIndexOf('/') + 1);
}

/**
 * Whether a robots.txt names a sitemap URL in a `Sitemap:` line (both normalized, so
 * `HTTP://Ex.com:80/a.xml` names `http://ex.com/a.xml`). A robots.txt that is missing, failed
 * or not cached names nothing.
 */
export function robotsNamesSitemap(state: RobotsState | null, sitemapUrl: string): boolean {
  if (state?.kind !== 'rules') return false;
  return state.rules.sitemaps.some((line) => {
    const n = normalizeUrl(line);
    return n.ok && n.url === sitemapUrl;
  });
}
