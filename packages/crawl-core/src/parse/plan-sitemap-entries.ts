import type { EnqueueUrl } from '@crawler/frontier';
import {
  priorityFromLastmod,
  type ParsedSitemap,
  type SitemapKind,
} from '@crawler/domain/sitemaps';
import { checkTrapRules, type TrapLimits, type TrapRule } from '@crawler/domain/traps';
import { frontierEntry } from '@crawler/domain/url';
import { SITEMAP_LIMITS, SITEMAP_MIN_TIER, type SitemapLimits } from './sitemap-limits';
import { directoryOf, entryScope, type SitemapStanding } from './sitemap-scope';

/** Why a sitemap entry was not enqueued. */
export type SitemapDrop =
  | 'invalid'
  | 'duplicate'
  | 'out_of_scope'
  | 'cross_host'
  | 'nested_index'
  | 'index_cap'
  | 'host_document_cap'
  | 'host_entry_cap'
  | TrapRule;

/** A fetched sitemap document, as its queue entry and standing describe it. */
export interface SitemapDocument {
  /** Its normalized URL. */
  url: string;
  /** Its host (`hostOf`). */
  host: string;
  standing: SitemapStanding;
  /** Its queue depth: its pages are one hop further, its listed sitemaps at the same depth. */
  depth: number;
  /**
   * The tier it was queued in (0, highest, to 9): nothing it lists goes in a higher one (a lower
   * number), nor above {@link SITEMAP_MIN_TIER}.
   */
  tier: number;
}

/** What a sitemap document adds to the frontier. */
export interface SitemapPlan {
  kind: SitemapKind;
  /** Pages (`sitemap`), at the document's depth + 1. */
  pages: EnqueueUrl[];
  /** Sitemap documents an index lists (`sitemap-file`), with the standing they inherit. */
  children: Array<{ url: EnqueueUrl; standing: SitemapStanding }>;
  dropped: Partial<Record<SitemapDrop, number>>;
  /** Other hosts whose robots.txt was consulted. */
  foreignHosts: number;
  /**
   * Origins of other hosts whose robots.txt is not known yet: their entries are in `pages` and
   * `children` but must wait until that robots.txt is read (held-sitemap-entries.ts).
   */
  unverified: string[];
}

/**
 * Decides which entries of a parsed sitemap go to the frontier, and how: each loc normalized
 * (the canonical form every seen-check uses) and deduplicated; kept only within the sitemap's
 * scope (its host and directory, its whole host when robots.txt names it, other hosts only
 * where their robots.txt names it: {@link entryScope}; where that robots.txt is not known yet
 * the entries are planned and their origin listed in `unverified`); kept out by the trap rules at the
 * pages' depth (the document's + 1, against the live `maxDepth`); an index's sitemaps capped
 * per index, and an index nested deeper than `maxIndexLevel` not expanded at all. Pages go in
 * the tier their lastmod earns, never above the document's own tier nor {@link SITEMAP_MIN_TIER}
 * (`<priority>` is the site's own claim and is ignored). Entries start a new hop count.
 *
 * @param ctx.robotsNames whether the robots.txt of another origin names this sitemap, or null
 *   when it is not known yet (its entries are then kept for later: `unverified`); asked once per
 *   origin, for at most `limits.maxForeignHosts` origins (entries on the rest are dropped).
 */
export async function planSitemapEntries(
  parsed: ParsedSitemap,
  doc: SitemapDocument,
  ctx: {
    robotsNames: (origin: string) => Promise<boolean | null>;
    trap: TrapLimits;
    now: Date;
    limits?: SitemapLimits;
  },
): Promise<SitemapPlan> {
  const limits = ctx.limits ?? SITEMAP_LIMITS;
  const plan: SitemapPlan = {
    kind: parsed.kind,
    pages: [],
    children: [],
    dropped: {},
    foreignHosts: 0,
    unverified: [],
  };
  const drop = (why: SitemapDrop, n = 1): void => {
    plan.dropped[why] = (plan.dropped[why] ?? 0) + n;
  };
  const isIndex = parsed.kind === 'sitemapindex';
  if (isIndex && doc.standing.level > limits.maxIndexLevel) {
    drop('nested_index', parsed.entries.length);
    return plan;
  }

  const entries = normalizeEntries(parsed, ctx.trap.maxUrlLength, drop);
  const named = await consultForeignHosts(entries, doc.host, limits.maxForeignHosts, ctx);
  plan.foreignHosts = named.size;
  const unverified = new Set<string>();
  const pageDepth = doc.depth + 1;
  const docTier = Math.max(SITEMAP_MIN_TIER, doc.tier);
  const scoped = { host: doc.host, dir: directoryOf(doc.url), standing: doc.standing };
  for (const e of entries) {
    // Not known yet counts as naming it here: such entries are held until it is known.
    const scope = entryScope(e, scoped, parsed.kind, (origin) => {
      const answer = named.get(origin);
      return answer === true || answer === null;
    });
    if (scope === 'out_of_scope' || scope === 'cross_host') {
      drop(scope);
      continue;
    }
    const trap = checkTrapRules(e.url, pageDepth, ctx.trap);
    if (trap) {
      drop(trap);
      continue;
    }
    if (scope === 'foreign' && named.get(new URL(e.url).origin) === null)
      unverified.add(new URL(e.url).origin);
    if (!isIndex) {
      const tier = Math.max(docTier, priorityFromLastmod(e.lastmod, ctx.now));
      plan.pages.push({ ...e.at, depth: pageDepth, priority: tier, source: 'sitemap' });
    } else if (plan.children.length >= limits.maxChildrenPerIndex) drop('index_cap');
    else
      plan.children.push({
        url: { ...e.at, depth: doc.depth, priority: docTier, source: 'sitemap-file' },
        standing: {
          level: doc.standing.level + 1,
          // A sitemap on another host is there because that host's robots.txt names its index.
          ownHost: scope === 'foreign' ? 'host' : doc.standing.ownHost,
        },
      });
  }
  plan.unverified = [...unverified];
  return plan;
}

interface NormalizedEntry {
  url: string;
  host: string;
  lastmod: Date | null;
  at: { url: string; urlFp: string; host: string };
}

/** The entries' locs normalized, invalid and repeated ones dropped; document order kept. */
function normalizeEntries(
  parsed: ParsedSitemap,
  maxUrlLength: number,
  drop: (why: SitemapDrop) => void,
): NormalizedEntry[] {
  const out: NormalizedEntry[] = [];
  const seen = new Set<string>();
  for (const e of parsed.entries) {
    const n = frontierEntry(e.loc, undefined, { maxLength: maxUrlLength });
    if (!n.ok) {
      drop(n.reason === 'too_long' ? 'url_too_long' : 'invalid');
      continue;
    }
    const at = n.entry;
    if (seen.has(at.urlFp)) {
      drop('duplicate');
      continue;
    }
    seen.add(at.urlFp);
    out.push({ url: at.url, host: at.host, lastmod: e.lastmod, at });
  }
  return out;
}

/**
 * Asks, once per origin of the entries on other hosts (the first `max` in document order),
 * whether its robots.txt names the sitemap (null: not known yet). Origins past `max` are not
 * asked: their entries are dropped as cross-host.
 */
async function consultForeignHosts(
  entries: readonly NormalizedEntry[],
  host: string,
  max: number,
  ctx: { robotsNames: (origin: string) => Promise<boolean | null> },
): Promise<Map<string, boolean | null>> {
  const origins: string[] = [];
  const picked = new Set<string>();
  for (const e of entries) {
    if (origins.length >= max) break;
    if (e.host === host) continue;
    const origin = new URL(e.url).origin;
    if (picked.has(origin)) continue;
    picked.add(origin);
    origins.push(origin);
  }
  const answers = await Promise.all(origins.map((o) => ctx.robotsNames(o)));
  return new Map(origins.map((o, i) => [o, answers[i] ?? null]));
}
