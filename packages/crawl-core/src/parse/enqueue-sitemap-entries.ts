import type { EnqueueUrl, LeasedUrl } from '@crawler/frontier';
import { parseSitemap } from '@crawler/domain/sitemaps';
import { DEFAULT_TRAP_LIMITS } from '@crawler/domain/traps';
import { hostOf } from '@crawler/domain/url';
import type { AgentResources } from '../agent-resources';
import { trapDrops } from '../lease/lease-run';
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
  dropped: SitemapPlan['dropped'];
}

/**
 * A fetched sitemap document (`isSitemapDocument`): its pages go to the frontier as `sitemap`
 * entries, an index's sitemaps as `sitemap-file` entries, within the rules of
 * `planSitemapEntries` (scope, trap rules and depth, nesting, tiers) and the host's 24-hour
 * budgets (`SITEMAP_LIMITS`). Its standing comes from robots.txt (a sitemap its host's
 * robots.txt names may list the whole host), else from the index that listed it (recorded in
 * `SitemapState`), else it is a root limited to its directory. What is left out is counted
 * and logged at debug; the parser never throws on bad input.
 */
export async function enqueueSitemapEntries(
  r: AgentResources,
  entry: LeasedUrl,
  body: Uint8Array,
): Promise<SitemapOutcome> {
  const outcome: SitemapOutcome = { pages: 0, sitemaps: 0, dropped: {} };
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

  const parsed = await parseSitemap(body, {
    sitemapUrl: entry.url,
    // The parser only resolves and reports here: scope is decided by planSitemapEntries.
    scopeUrl: new URL('/robots.txt', entry.url).href,
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
      robotsNames: async (origin) =>
        robotsNamesSitemap((await r.robots.cached(origin))?.state ?? null, entry.url),
      trap: { ...DEFAULT_TRAP_LIMITS, maxDepth: r.settings.maxDepth() },
      now: new Date(),
    },
  );
  outcome.dropped = plan.dropped;
  const drop = (why: SitemapDrop, n: number): void => {
    if (n > 0) plan.dropped[why] = (plan.dropped[why] ?? 0) + n;
  };

  const pages = plan.pages.slice(
    0,
    await r.sitemaps.take(host, 'entries', plan.pages.length, SITEMAP_LIMITS.maxEntriesPerHost),
  );
  drop('host_entry_cap', plan.pages.length - pages.length);
  const sitemaps = await admitListedSitemaps(r, plan.children);
  drop('host_document_cap', plan.children.length - sitemaps.length);

  r.counters.trapRefused += trapDrops(plan.dropped);
  const foreign = new Set<string>();
  for (const u of [...pages, ...sitemaps]) if (u.host !== host) foreign.add(u.host);
  if (foreign.size > 0) r.http.prefetchDns([...foreign]);
  await r.links.add([...pages, ...sitemaps]);
  outcome.pages = pages.length;
  outcome.sitemaps = sitemaps.length;
  if (parsed.errorCount > 0 || Object.keys(plan.dropped).length > 0)
    r.log.debug(
      {
        url: entry.url,
        kind: parsed.kind,
        standing,
        pages: pages.length,
        sitemaps: sitemaps.length,
        dropped: plan.dropped,
        foreignHosts: plan.foreignHosts,
        truncated: parsed.truncated,
        errors: parsed.errors.slice(0, 3),
        errorCount: parsed.errorCount,
      },
      'sitemap entries left out',
    );
  return outcome;
}

/**
 * The sitemaps an index listed that their hosts' daily document budgets admit (each host pays
 * for its own), with their standings recorded before they are enqueued.
 */
async function admitListedSitemaps(
  r: AgentResources,
  listed: SitemapPlan['children'],
): Promise<EnqueueUrl[]> {
  const byHost = new Map<string, SitemapPlan['children']>();
  for (const c of listed) {
    const group = byHost.get(c.url.host);
    if (group) group.push(c);
    else byHost.set(c.url.host, [c]);
  }
  const admitted: EnqueueUrl[] = [];
  for (const [host, group] of byHost) {
    const n = await r.sitemaps.take(
      host,
      'documents',
      group.length,
      SITEMAP_LIMITS.maxDocumentsPerHost,
    );
    const kept = group.slice(0, n);
    await r.sitemaps.record(
      host,
      kept.map((c) => ({ urlFp: c.url.urlFp, standing: c.standing })),
    );
    for (const c of kept) admitted.push(c.url);
  }
  return admitted;
}
