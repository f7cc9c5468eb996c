import type { EnqueueUrl, LeasedUrl } from '@crawler/frontier';
import { DEFAULT_TRAP_LIMITS } from '@crawler/domain/traps';
import { hostOf } from '@crawler/domain/url';
import type { AgentResources } from '../agent-resources';
import { trapDropsByRule } from '../lease/lease-run';
import {
  admitListedSitemaps,
  holdForeignEntries,
  isRobotsCheck,
  releaseHeldEntries,
} from './held-sitemap-entries';
import { ParsePoolError } from './parse-pool';
import { sitemapTask } from './sitemap-task';
import { planSitemapEntries, type SitemapDrop, type SitemapPlan } from './plan-sitemap-entries';
import { SITEMAP_LIMITS, SITEMAP_MIN_TIER } from './sitemap-limits';
import { ROOT_STANDING, robotsNamesSitemap, type SitemapStanding } from './sitemap-scope';

/**
 * A redirect target that turned out to be a sitemap: it may be a seed's sitemap moved to https,
 * or a listed sitemap's; it is not known to be a root, so an index there may not list indexes.
 */
const REDIRECT_STANDING: Readonly<SitemapStanding> = { level: 1, ownHost: 'dir' };

/** What one sitemap document added to the frontier, and what it left out (by reason). */
export interface SitemapOutcome {
  pages: number;
  sitemaps: number;
  /** Entries on other hosts kept until those hosts' robots.txt is read (held-sitemap-entries.ts). */
  held: number;
  dropped: SitemapPlan['dropped'];
}

/**
 * A fetched sitemap document (`isSitemapDocument`): its pages go to the frontier as `sitemap`
 * entries, an index's sitemaps as `sitemap-file` entries, within the rules of
 * `planSitemapEntries` (scope, trap rules and depth, nesting, tiers) and the host's 24-hour
 * budgets (`SITEMAP_LIMITS`). Its standing comes from robots.txt (a sitemap its host's
 * robots.txt names may list the whole host), else from the index that listed it (recorded in
 * `SitemapState`), else it is a root limited to its directory. Entries on another host whose
 * robots.txt is not known yet are held until that host's lease reads it
 * (held-sitemap-entries.ts). Entries the trap rules keep out are counted by rule in the host's
 * quality counters, as a page's links are. What is left out is counted and logged at debug;
 * the parser never throws on bad input.
 *
 * The document's origin has its robots.txt settled under this lease: entries other sitemaps
 * listed on it while it was not known are decided first. A check queued for that
 * (`isRobotsCheck`) does only that.
 */
export async function enqueueSitemapEntries(
  r: AgentResources,
  entry: LeasedUrl,
  body: Uint8Array,
): Promise<SitemapOutcome> {
  const outcome: SitemapOutcome = { pages: 0, sitemaps: 0, held: 0, dropped: {} };
  const released = await releaseHeldEntries(r, new URL(entry.url).origin);
  if (released.dropped > 0) outcome.dropped.cross_host = released.dropped;
  if (isRobotsCheck(entry)) {
    outcome.pages = released.pages;
    outcome.sitemaps = released.sitemaps;
    return outcome;
  }
  const host = hostOf(entry.url);
  const recorded = await r.sitemaps.standingOf(host, entry.urlFp);
  let standing = recorded ?? (entry.source === 'redirect' ? REDIRECT_STANDING : ROOT_STANDING);
  const own = await r.robots.cached(new URL(entry.url).origin);
  if (robotsNamesSitemap(own?.state ?? null, entry.url)) standing = { level: 0, ownHost: 'host' };
  // An index paid for the sitemaps it listed when it enqueued them; others pay when fetched.
  if (
    recorded === null &&
    (await r.sitemaps.take(host, 'documents', 1, SITEMAP_LIMITS.maxDocumentsPerHost)) === 0
  ) {
    outcome.dropped.host_document_cap = 1;
    r.log.debug({ url: entry.url, host }, 'sitemap not expanded: the host used its daily budget');
    return outcome;
  }

  const input = {
    body,
    options: {
      sitemapUrl: entry.url,
      // The parser only resolves and reports here: scope is decided by planSitemapEntries.
      scopeUrl: new URL('/robots.txt', entry.url).href,
    },
  };
  // Off the event loop; in-process only when the pool cannot (closed, a worker that failed).
  const parsed = await r.parsePool.sitemap(input).catch((err: unknown) => {
    if (!(err instanceof ParsePoolError)) throw err;
    return sitemapTask(input);
  });
  const plan = await planSitemapEntries(
    parsed,
    {
      url: entry.url,
      host,
      depth: entry.depth,
      tier: entry.tier === 'r' ? SITEMAP_MIN_TIER : Number(entry.tier),
      standing,
    },
    {
      robotsNames: async (origin) => {
        const known = await r.robots.cached(origin);
        if (known) return robotsNamesSitemap(known.state, entry.url);
        // Not known yet: that host is asked under its own lease, within this host's budget.
        const granted = await r.sitemaps.take(
          host,
          'foreign',
          1,
          SITEMAP_LIMITS.maxForeignChecksPerHost,
        );
        return granted === 1 ? null : false;
      },
      trap: { ...DEFAULT_TRAP_LIMITS, maxDepth: r.settings.maxDepth() },
      now: new Date(),
    },
  );
  for (const [why, n] of Object.entries(plan.dropped) as Array<[SitemapDrop, number]>)
    outcome.dropped[why] = (outcome.dropped[why] ?? 0) + n;
  const drop = (why: SitemapDrop, n: number): void => {
    if (n > 0) outcome.dropped[why] = (outcome.dropped[why] ?? 0) + n;
  };

  const pages = plan.pages.slice(
    0,
    await r.sitemaps.take(host, 'entries', plan.pages.length, SITEMAP_LIMITS.maxEntriesPerHost),
  );
  drop('host_entry_cap', plan.pages.length - pages.length);
  // Entries on origins whose robots.txt is not known wait for it; the rest go now.
  const unverified = new Set(plan.unverified);
  const waiting = new Map<string, { pages: EnqueueUrl[]; sitemaps: SitemapPlan['children'] }>();
  const waitingOn = (url: string) => {
    const origin = new URL(url).origin;
    if (!unverified.has(origin)) return null;
    let group = waiting.get(origin);
    if (!group) waiting.set(origin, (group = { pages: [], sitemaps: [] }));
    return group;
  };
  const pagesNow: EnqueueUrl[] = [];
  for (const p of pages) {
    const group = waitingOn(p.url);
    if (group) group.pages.push(p);
    else pagesNow.push(p);
  }
  const listedNow: SitemapPlan['children'] = [];
  for (const c of plan.children) {
    const group = waitingOn(c.url.url);
    if (group) group.sitemaps.push(c);
    else listedNow.push(c);
  }
  const sitemaps = await admitListedSitemaps(r, listedNow);
  drop('host_document_cap', listedNow.length - sitemaps.length);

  for (const [rule, n] of trapDropsByRule(plan.dropped)) {
    r.counters.trapRefused += n;
    r.quality.count(host, rule, n);
  }
  const foreign = new Set<string>();
  for (const u of [...pagesNow, ...sitemaps]) if (u.host !== host) foreign.add(u.host);
  if (foreign.size > 0) r.http.prefetchDns([...foreign]);
  await r.links.add([...pagesNow, ...sitemaps]);
  outcome.held = await holdForeignEntries(r, entry.url, waiting);
  outcome.pages = pagesNow.length;
  outcome.sitemaps = sitemaps.length;
  if (parsed.errorCount > 0 || Object.keys(outcome.dropped).length > 0 || outcome.held > 0)
    r.log.debug(
      {
        url: entry.url,
        kind: parsed.kind,
        standing,
        pages: pagesNow.length,
        sitemaps: sitemaps.length,
        held: outcome.held,
        dropped: outcome.dropped,
        foreignHosts: plan.foreignHosts,
        truncated: parsed.truncated,
        errors: parsed.errors.slice(0, 3),
        errorCount: parsed.errorCount,
      },
      'sitemap entries left out',
    );
  return outcome;
}
