import { DEFAULT_PRIORITY } from '@crawler/frontier';

/**
 * How far a sitemap may lead the crawl. Named constants rather than settings: they only bound
 * what a hostile or broken sitemap can do, and no legitimate site comes near them (one host is
 * fetched at its own pace, `HOST_DAILY_BUDGET` pages a day, 50,000 by default, so more queued URLs
 * than these only fill Redis).
 */
export interface SitemapLimits {
  /**
   * Deepest sitemap index still expanded: 0 is a root index (a seed, a robots.txt `Sitemap:`
   * line), 1 an index listed by an index. sitemaps.org says an index lists sitemaps, not
   * indexes; one nested level is tolerated because real sites do it, deeper ones are chains.
   */
  maxIndexLevel: number;
  /** Sitemaps followed per index (the protocol allows 50,000; large sites list a few hundred). */
  maxChildrenPerIndex: number;
  /**
   * Sitemap documents expanded per host within 24 h (roots when fetched, an index's children
   * when enqueued): what an index of indexes, or one index per host, can reach at most.
   */
  maxDocumentsPerHost: number;
  /**
   * URLs enqueued from one host's sitemap documents within 24 h: 100,000 is two days of the
   * default daily budget of 50,000 fetches per host, so a host cannot fill the frontier.
   */
  maxEntriesPerHost: number;
  /**
   * Other hosts whose robots.txt is consulted per sitemap (cross-host entries are kept only
   * where that host's robots.txt names the sitemap); entries on further hosts are dropped.
   */
  maxForeignHosts: number;
  /**
   * Other hosts whose robots.txt is not known yet that one host's sitemaps may have checked
   * within 24 h: each costs that host a robots.txt request, under its own lease, before its
   * entries are released (held-sitemap-entries.ts). Entries on hosts past it are dropped.
   */
  maxForeignChecksPerHost: number;
  /** `Sitemap:` lines taken from one robots.txt. */
  maxRobotsSitemaps: number;
}

export const SITEMAP_LIMITS: Readonly<SitemapLimits> = {
  maxIndexLevel: 1,
  maxChildrenPerIndex: 1000,
  maxDocumentsPerHost: 2000,
  maxEntriesPerHost: 100_000,
  maxForeignHosts: 20,
  maxForeignChecksPerHost: 20,
  maxRobotsSitemaps: 100,
};

/**
 * The lowest tier number (highest priority) a sitemap puts a URL in: the default priority of
 * seeds and links (the frontier's and `POST /v1/seeds`' default, 1). A sitemap's own
 * `<priority>` and `<lastmod>` are the site's claims: they may lower a URL's tier, never raise
 * it above that.
 */
export const SITEMAP_MIN_TIER = DEFAULT_PRIORITY;

/** How long a host's sitemap budgets and the standings of its listed sitemaps are kept. */
export const SITEMAP_STATE_TTL_MS = 24 * 3600 * 1000;
