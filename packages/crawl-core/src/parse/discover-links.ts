import { frontierEntry, hostOf, resolveBase } from '@crawler/domain/url';
import { checkTrapRules, type TrapLimits } from '@crawler/domain/traps';
import { MAX_PAGE_LINKS } from '@crawler/domain/messages';
import type { EnqueueUrl } from '@crawler/frontier';
import type { ExtractedPage } from './extracted-page';

export interface DiscoveredLinks {
  /** What to enqueue: new to this page, allowed by the trap rules and page-level nofollow. */
  urls: EnqueueUrl[];
  /** The page's out-links as the feed carries them: normalized, unique, in document order. */
  outlinks: Array<{ url: string; nofollow: boolean }>;
  /** Links dropped, by reason (invalid, scheme, trap rule…). */
  dropped: Record<string, number>;
}

/**
 * Turns a page's hrefs into frontier entries: resolved against the page's effective base,
 * normalized (the one canonical form every seen-check uses), deduplicated within the page, and
 * kept out when a trap rule says so. A link to another host starts a new hop count (0); a
 * same-host link is one hop more than its page. One bad href never affects the others.
 */
export function discoverLinks(
  pageUrl: string,
  page: ExtractedPage,
  depth: number,
  limits: TrapLimits,
  /** The page's same-host hops from a page another host links to: same-host links are one more. */
  hops = 0,
): DiscoveredLinks {
  const pageHost = hostOf(pageUrl);
  const dropped: Record<string, number> = {};
  const urls: EnqueueUrl[] = [];
  const outlinks: DiscoveredLinks['outlinks'] = [];
  const base = resolveBase(pageUrl, page.baseHref);
  const seen = new Set<string>();
  const childDepth = depth + 1;
  for (const link of page.links) {
    const n = frontierEntry(link.href, base, { maxLength: limits.maxUrlLength });
    if (!n.ok) {
      dropped[n.reason] = (dropped[n.reason] ?? 0) + 1;
      continue;
    }
    const { url, urlFp, host } = n.entry;
    if (seen.has(urlFp)) continue;
    seen.add(urlFp);
    if (outlinks.length < MAX_PAGE_LINKS) outlinks.push({ url, nofollow: link.nofollow });
    if (page.nofollow) {
      dropped.meta_nofollow = (dropped.meta_nofollow ?? 0) + 1;
      continue;
    }
    const linkHops = host === pageHost ? hops + 1 : 0;
    const trap = checkTrapRules(url, childDepth, limits, linkHops);
    if (trap) {
      dropped[trap] = (dropped[trap] ?? 0) + 1;
      continue;
    }
    urls.push({
      ...n.entry,
      depth: childDepth,
      source: 'link',
      hops: linkHops,
      // An in-link from another host raises that host's priority class (the frontier counts sites).
      ...(host === pageHost ? {} : { fromHost: pageHost }),
    });
  }
  return { urls, outlinks, dropped };
}
