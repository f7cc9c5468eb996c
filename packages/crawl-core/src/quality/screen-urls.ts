import type { EnqueueUrl, LeasedUrl } from '@crawler/frontier';
import { urlFingerprint } from '@crawler/domain/url';
import { HostQuality } from '@crawler/domain/quality';
import type { AgentResources } from '../agent-resources';
import type { QualityCounter } from './host-quality-tracker';

/**
 * Queue priority of links into a URL family that has started repeating itself: the lowest tier
 * (9), so the host's other work goes first.
 */
export const THROTTLED_PRIORITY = 9;

/**
 * A URL carrying a parameter this host has not judged yet but other hosts learned as a no-op
 * (`print`, `ref`…): queued last, so the host's URLs without it come first — by then the host
 * can tell for itself, and the first such URL teaches it.
 */
function likelyVariant(r: AgentResources, quality: HostQuality, url: string): boolean {
  const q = url.indexOf('?');
  if (q < 0) return false;
  for (const pair of url.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (quality.paramState(name) === undefined && r.quality.noopOnOtherHosts(name)) return true;
  }
  return false;
}

/** What a leased URL comes to before its request: fetch it, skip it (it is done), or end the lease. */
export type LeasedUrlScreen =
  { kind: 'fetch' } | { kind: 'skip' } | { kind: 'stop'; delayMs: number };

function refuse(r: AgentResources, host: string, rule: QualityCounter): void {
  r.quality.count(host, rule);
  r.counters.qualityRefused++;
}

/** Milliseconds until the next UTC day, when a cut budget is whole again. */
function untilNextUtcDay(now: number): number {
  return 86_400_000 - (now % 86_400_000);
}

/**
 * The operators' URL-pattern blocks and the host's quality rules on a leased URL, before any
 * request: a URL matching a block pattern is dropped; a URL of a closed family, a deep
 * pager or a facet combination is dropped (counted under its rule; the URL inspector reads the
 * rule from the host's state); one carrying learned no-op parameters is enqueued without them
 * (the seen-check then drops it when that URL is known) and skipped; a host whose duplicate
 * budget is spent ends its lease until the next UTC day.
 */
export async function screenLeasedUrl(
  r: AgentResources,
  host: string,
  entry: LeasedUrl,
): Promise<LeasedUrlScreen> {
  // An operator's URL-pattern block applies to URLs queued before it was added. (A whole-host
  // block is not a drop: the lease stops and the host's queue waits until it is unblocked.)
  const blocked = r.blockRules.match(entry.url, host);
  if (blocked?.kind === 'pattern') {
    r.quality.count(host, 'blocked_pattern');
    r.counters.blockRefused++;
    return { kind: 'skip' };
  }
  const quality = r.quality.get(host);
  if (!quality) return { kind: 'fetch' };
  if (quality.budgetLeft() === 0) {
    r.quality.count(host, 'duplicate_budget');
    return { kind: 'stop', delayMs: untilNextUtcDay(Date.now()) };
  }
  const verdict = quality.screen(entry.url);
  if (verdict.kind === 'keep') return { kind: 'fetch' };
  if (verdict.kind === 'drop') {
    refuse(r, host, verdict.rule);
    return { kind: 'skip' };
  }
  r.quality.count(host, 'noop_param');
  await r.links.add([
    {
      url: verdict.url,
      urlFp: urlFingerprint(verdict.url),
      host,
      depth: entry.depth,
      hops: entry.hops,
      redirects: entry.redirects,
      source: entry.source === 'recrawl' ? 'link' : entry.source,
    },
  ]);
  return { kind: 'skip' };
}

/**
 * The host's quality rules on the links one of its pages found: same-host links of closed
 * families, pager steps past the cap and facet explosions are dropped, and so are links into
 * the page's own family when the page only repeated that family (`pageStale`: it brings nothing
 * new — a calendar's next month); learned no-op parameters are removed, and links into a family
 * that has started repeating itself go to the lowest priority. Links to other hosts pass (their
 * own host's rules apply when they are leased).
 */
export function screenLinks(
  r: AgentResources,
  host: string,
  /** The page the links were found on, and whether it repeated its URL family. */
  page: { url: string; stale: boolean },
  urls: EnqueueUrl[],
): EnqueueUrl[] {
  const quality = r.quality.get(host);
  if (!quality) return urls;
  const out: EnqueueUrl[] = [];
  for (const u of urls) {
    if (u.host !== host) {
      out.push(u);
      continue;
    }
    if (page.stale && HostQuality.sameFamily(u.url, page.url)) {
      refuse(r, host, 'template_exhausted');
      continue;
    }
    const verdict = quality.screen(u.url, page.url);
    if (verdict.kind === 'drop') refuse(r, host, verdict.rule);
    else if (verdict.kind === 'strip') {
      r.quality.count(host, 'noop_param');
      out.push({ ...u, url: verdict.url, urlFp: urlFingerprint(verdict.url) });
    } else
      out.push(
        verdict.throttled || likelyVariant(r, quality, u.url)
          ? { ...u, priority: THROTTLED_PRIORITY }
          : u,
      );
  }
  return out;
}
