import type { EnqueueUrl, LeasedUrl } from '@crawler/frontier';
import { frontierEntry, hostOf } from '@crawler/domain/url';
import type { AgentResources } from '../agent-resources';
import { SITEMAP_LIMITS } from './sitemap-limits';
import { robotsNamesSitemap, type SitemapStanding } from './sitemap-scope';
import type { HeldPage } from './sitemap-state';

/**
 * Cross-host sitemap entries whose host's robots.txt is not known yet (sitemaps.org: a sitemap
 * may list another host's URLs only where that host's robots.txt names the sitemap).
 *
 * The agent reads a host's robots.txt only under a lease of that host, at its pace
 * (ensure-robots.ts): asking a host outside its lease would break the one-host-one-agent rule.
 * So such entries are not queued at once. They are held in Redis on that host's shard
 * (`SitemapState.hold`), and one check is queued on that host: its own `/robots.txt` as a
 * sitemap document (`sitemap-file`). When the host is leased, its robots.txt is settled first,
 * as for any URL; the lease then meets the check and, instead of requesting it, releases what
 * the now known robots.txt names and drops the rest ({@link takeRobotsCheck}). (Should a check
 * be fetched after all, `enqueueSitemapEntries` does the same with it.) Any sitemap later
 * fetched on that origin releases them too. Nothing listed for a host that never confirms is
 * ever requested there: the host hears one robots.txt request, under its own lease.
 *
 * The check goes at the crawl's deepest depth, so the `Sitemap:` lines of a robots.txt it
 * makes the agent read are not followed (their pages would be too deep): a sitemap naming other
 * hosts cannot lead the crawl into their own sitemaps. A host's sitemaps may have at most
 * `maxForeignChecksPerHost` other hosts checked a day, `maxForeignHosts` per document.
 */

/** Whether a leased URL is the check queued by {@link holdForeignEntries}. */
export function isRobotsCheck(entry: Pick<LeasedUrl, 'url' | 'source'>): boolean {
  if (entry.source !== 'sitemap-file') return false;
  const u = new URL(entry.url);
  return u.pathname === '/robots.txt' && u.search === '';
}

/**
 * For the lease loop, before a URL's request (its origin's robots.txt settled): true when the
 * URL is a check queued by {@link holdForeignEntries}, now done without a request, the entries
 * held for its origin released or dropped.
 */
export async function takeRobotsCheck(
  r: AgentResources,
  entry: Pick<LeasedUrl, 'url' | 'source'>,
): Promise<boolean> {
  if (!isRobotsCheck(entry)) return false;
  await releaseHeldEntries(r, new URL(entry.url).origin);
  return true;
}

/** What releasing held entries added, and how many it dropped (robots.txt did not name them). */
export interface Released {
  pages: number;
  sitemaps: number;
  dropped: number;
}

/**
 * Holds the planned entries of a sitemap that lie on origins whose robots.txt is not known,
 * and queues each origin's check (see above). An origin whose robots.txt became known
 * meanwhile is decided at once. Returns the number of entries held.
 */
export async function holdForeignEntries(
  r: AgentResources,
  sitemapUrl: string,
  byOrigin: ReadonlyMap<
    string,
    { pages: EnqueueUrl[]; sitemaps: Array<{ url: EnqueueUrl; standing: SitemapStanding }> }
  >,
): Promise<number> {
  const checks: EnqueueUrl[] = [];
  let held = 0;
  for (const [origin, group] of byOrigin) {
    if (group.pages.length + group.sitemaps.length === 0) continue;
    const host = hostOf(origin);
    const check = frontierEntry(`${origin}/robots.txt`);
    if (!check.ok) continue;
    const toHeld = (u: EnqueueUrl): HeldPage => [u.url, u.urlFp, u.depth, u.priority ?? 1];
    await r.sitemaps.hold(host, origin, {
      sitemap: sitemapUrl,
      pages: group.pages.map(toHeld),
      sitemaps: group.sitemaps.map((c) => [...toHeld(c.url), c.standing]),
    });
    held += group.pages.length + group.sitemaps.length;
    // Written first, read after (and the other way round in ensureRobots, which records
    // robots.txt before its lease fetches the check): one of the two sees the other.
    if (await r.robots.cached(origin)) await releaseHeldEntries(r, origin);
    else {
      const tiers = [...group.pages, ...group.sitemaps.map((c) => c.url)].map(
        (u) => u.priority ?? 1,
      );
      checks.push({
        ...check.entry,
        depth: r.settings.maxDepth(),
        priority: Math.min(...tiers),
        source: 'sitemap-file',
      });
    }
  }
  if (checks.length > 0) await r.links.add(checks);
  return held;
}

/**
 * Releases the entries held for an origin whose robots.txt is known (settled under the lease
 * of its host): those whose sitemap it names go to the frontier (listed sitemaps within their
 * host's document budget, their standing recorded), the rest are dropped. Nothing is taken
 * while the robots.txt is not known.
 */
export async function releaseHeldEntries(r: AgentResources, origin: string): Promise<Released> {
  const out: Released = { pages: 0, sitemaps: 0, dropped: 0 };
  const robots = await r.robots.cached(origin);
  if (!robots) return out;
  const host = hostOf(origin);
  const heldLists = await r.sitemaps.takeHeld(host, origin);
  if (heldLists.length === 0) return out;
  const pages: EnqueueUrl[] = [];
  const listed: Array<{ url: EnqueueUrl; standing: SitemapStanding }> = [];
  const entry = ([url, urlFp, depth, priority]: HeldPage, source: EnqueueUrl['source']) => ({
    url,
    urlFp,
    host,
    depth,
    priority,
    source,
  });
  for (const h of heldLists) {
    if (!robotsNamesSitemap(robots.state, h.sitemap)) {
      out.dropped += h.pages.length + h.sitemaps.length;
      continue;
    }
    for (const p of h.pages) pages.push(entry(p, 'sitemap'));
    for (const [url, urlFp, depth, priority, standing] of h.sitemaps)
      listed.push({ url: entry([url, urlFp, depth, priority], 'sitemap-file'), standing });
  }
  const sitemaps = await admitListedSitemaps(r, listed);
  out.dropped += listed.length - sitemaps.length;
  await r.links.add([...pages, ...sitemaps]);
  out.pages = pages.length;
  out.sitemaps = sitemaps.length;
  if (out.dropped > 0 || out.pages + out.sitemaps > 0)
    r.log.debug({ origin, ...out }, 'held cross-host sitemap entries decided');
  return out;
}

/**
 * The sitemaps an index listed that their hosts' daily document budgets admit (each host pays
 * for its own), with their standings recorded before they are enqueued.
 */
export async function admitListedSitemaps(
  r: AgentResources,
  listed: ReadonlyArray<{ url: EnqueueUrl; standing: SitemapStanding }>,
): Promise<EnqueueUrl[]> {
  const byHost = new Map<string, Array<{ url: EnqueueUrl; standing: SitemapStanding }>>();
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
