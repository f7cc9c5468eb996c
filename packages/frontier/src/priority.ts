import { CrawlerError } from '@crawler/domain/errors';
import { fnv1a32 } from './keys';
import type { EnqueueUrl } from './types';

/**
 * Priorities, two kinds. A URL's priority (0 highest … 9, the API's seed priority) is its tier in
 * its host's queue: q0…q9, mixed into a host's batches by the tier weights. A host's priority
 * class (0 highest … 9) orders the hosts that are due: set by its best seed, raised by links from
 * other sites, lowered by demoteHost (commands/includes/host-class.lua has the rule).
 */

/** URL priority tiers per host: 0 (highest) to 9. */
export const PRIORITY_TIERS = 10;
/** The tier of a URL enqueued without a priority. */
export const DEFAULT_PRIORITY = 1;
/** Default tier weights: each tier twice the next, as the earlier 8,4,2,1 for four tiers. */
export const DEFAULT_TIER_WEIGHTS: readonly number[] = [512, 256, 128, 64, 32, 16, 8, 4, 2, 1];
/** Host priority classes: 0 (leased first) to 9. */
export const HOST_CLASSES = 10;
/** The class of a host with no seed, no counted in-links and no demotion. */
export const DISCOVERED_HOST_CLASS = 5;

/** Hex digits of a referring site's id in the host hash field `in_sites`. */
export const SITE_ID_LENGTH = 8;

/** Raised for input the frontier refuses before writing anything (e.g. a priority out of 0–9). */
export class FrontierInputError extends CrawlerError {
  readonly code = 'FRONTIER_BAD_INPUT';
  readonly retry = 'give_up';
}

/** The queue tier of a URL: 'r' for a re-crawl, else its priority, an integer 0–9 (default 1). */
export function tierOf(u: Pick<EnqueueUrl, 'priority' | 'source' | 'url'>): string {
  if (u.source === 'recrawl') return 'r';
  const p = u.priority ?? DEFAULT_PRIORITY;
  if (!Number.isInteger(p) || p < 0 || p >= PRIORITY_TIERS)
    throw new FrontierInputError(`priority ${p} of ${u.url}: an integer 0 (highest) to 9`);
  return String(p);
}

/** Checks tier weights: ten whole numbers ≥ 0, tiers 0–9. */
export function checkTierWeights(weights: readonly number[]): readonly number[] {
  if (weights.length !== PRIORITY_TIERS || weights.some((w) => !Number.isInteger(w) || w < 0))
    throw new FrontierInputError(
      `tier weights ${weights.join(',')}: ten whole numbers ≥ 0, for tiers 0–9`,
    );
  return weights;
}

/**
 * The site a host belongs to, for counting in-links: its last two labels (an IP address stays
 * whole). Hosts under one domain count as one site, so subdomains cannot vouch for each other;
 * under suffixes like co.uk or github.io distinct sites count as one — the safe side.
 */
export function siteOf(host: string): string {
  const h = host.endsWith('.') ? host.slice(0, -1) : host;
  if (h.includes(':') || /^\d+\.\d+\.\d+\.\d+$/.test(h)) return h;
  const labels = h.split('.');
  return labels.slice(-2).join('.');
}

/**
 * The id under which a link from `fromHost` counts toward `host`'s class (8 hex digits of the
 * site's FNV-1a), or null when both are on one site.
 */
export function inLinkSiteId(fromHost: string, host: string): string | null {
  const from = siteOf(fromHost.toLowerCase());
  if (from === siteOf(host.toLowerCase())) return null;
  return fnv1a32(from).toString(16).padStart(SITE_ID_LENGTH, '0');
}
