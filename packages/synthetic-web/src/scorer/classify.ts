/**
 * The class of one scored non-robots request (README "Scorer rules"), first rule that applies:
 * `trap` (a trap family's URL), `variant` (a no-op parameter variant of a manifest URL, or a
 * repeat of a URL already settled), `useful` (a manifest URL), `other`.
 */
import { trapFamilyOfPathKey, withoutNoopParams, type TrapFamily } from '../trap-patterns.js';
import type { FetchClass, SiteInfo } from '../types.js';

/** What {@link classifyFetch} looks at. */
export interface FetchClassInput {
  /** The request's canonical URL (`canonicalizeUrl`), or null when it did not parse. */
  canonical: string | null;
  /** Response status (0 when aborted before the head). */
  status: number;
  /** The host, or undefined for a host the web does not have. */
  site: SiteInfo | undefined;
  /** An earlier request had already settled this canonical URL (the duplicate rule). */
  repeat: boolean;
  /** robots.txt allows the path for the product token. */
  allowed: boolean;
  /** `manifest.expected`. */
  expected: ReadonlySet<string>;
  /** `manifest.sitemaps`. */
  sitemaps: ReadonlySet<string>;
}

/** The class of a request, with the trap family, the variant kind or the probe flag. */
export interface FetchClassification {
  cls: FetchClass;
  family?: TrapFamily;
  variant?: 'noop' | 'repeat';
  /** An `other` request answered 200 on a `soft-404` host: the crawler's probe of a random path. */
  probe?: boolean;
}

function pathKeyOf(canonical: string): string {
  const u = new URL(canonical);
  return `${u.pathname}${u.search}`;
}

/** Classifies one scored non-robots request (see the module comment). */
export function classifyFetch(i: FetchClassInput): FetchClassification {
  if (i.site === undefined || i.canonical === null) return { cls: 'other' };
  const family = trapFamilyOfPathKey(pathKeyOf(i.canonical));
  if (family !== null) return { cls: 'trap', family };
  const bare = withoutNoopParams(i.canonical);
  if (bare !== i.canonical && i.expected.has(bare)) return { cls: 'variant', variant: 'noop' };
  if (i.repeat) return { cls: 'variant', variant: 'repeat' };
  if (i.expected.has(i.canonical)) return { cls: 'useful' };
  const probe =
    i.site.features.includes('soft-404') &&
    i.status === 200 &&
    i.allowed &&
    !i.sitemaps.has(i.canonical);
  return probe ? { cls: 'other', probe } : { cls: 'other' };
}
