/**
 * The scorer: reads a request log against a manifest and reports coverage, politeness, robots,
 * duplicate and trap figures, and the class of every request (useful, trap, variant, other).
 * Rules are documented in the package README ("Scorer rules").
 */
import { canonicalizeUrl } from '../canonical.js';
import { TRAP_FAMILIES } from '../trap-patterns.js';
import { isAllowed, robotsPathOf, robotsPolicyOf, type HostRobots } from '../robots/matcher.js';
import type { RequestLogEntry, ScoreInput, ScoreReport, SiteInfo, Violation } from '../types.js';
import { classifyFetch } from './classify.js';

const MAX_MISSING = 50;
const MAX_VIOLATIONS = 100;

function policyOf(site: SiteInfo, token: string): HostRobots {
  if (site.robots === '5xx') return 'deny';
  if (site.robotsTxt === null) return null;
  return robotsPolicyOf(site.robotsTxt, token);
}

/** A response that settles a URL for the cycle: 2xx, 3xx or 4xx except 429, not aborted. */
function isFinal(e: RequestLogEntry): boolean {
  return !e.aborted && e.status >= 200 && e.status < 500 && e.status !== 429;
}

interface Prepared {
  e: RequestLogEntry;
  canonical: string | null;
  path: string;
  robots: boolean;
  scored: boolean;
}

/** Seconds from the first request's start to the last one's end (0 without requests). */
function spanS(entries: RequestLogEntry[]): number {
  if (entries.length === 0) return 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const e of entries) {
    first = Math.min(first, e.startMs);
    last = Math.max(last, e.endMs);
  }
  return (last - first) / 1000;
}

/** Scores a crawl (see README "Scorer rules"). */
export function scoreCrawl(input: ScoreInput): ScoreReport {
  const tolerance = input.toleranceMs ?? 2;
  const since = input.sinceMs ?? Number.NEGATIVE_INFINITY;
  const unsettled = input.unsettled ?? new Set<number>();
  const sites = new Map(input.manifest.hosts.map((h) => [h.host, h]));
  const policies = new Map<string, HostRobots>();
  for (const s of input.manifest.hosts) policies.set(s.host, policyOf(s, input.productToken));
  const gapOf = (host: string): number => {
    const p = policies.get(host);
    const delay =
      p !== undefined && p !== null && p !== 'deny' && p.crawlDelayS !== null
        ? p.crawlDelayS * 1000
        : 0;
    return Math.max(input.minGapMs, delay);
  };

  const all: Prepared[] = input.log
    .slice()
    .sort((a, b) => a.startMs - b.startMs || a.seq - b.seq)
    .map((e) => {
      const path = robotsPathOf(e.url);
      return {
        e,
        canonical: canonicalizeUrl(e.url),
        path,
        robots: path === '/robots.txt',
        scored: e.startMs >= since,
      };
    });
  const scored = all.filter((p) => p.scored);
  const violations: Violation[] = [];
  const note = (kind: string, host: string, detail: string): void => {
    if (violations.length < MAX_VIOLATIONS) violations.push({ kind, host, detail });
  };

  // Coverage.
  const expected = new Set(input.manifest.expected);
  const covered = new Set<string>();
  for (const p of scored)
    if (p.canonical !== null && expected.has(p.canonical)) covered.add(p.canonical);
  const missing: string[] = [];
  for (const u of input.manifest.expected) {
    if (missing.length >= MAX_MISSING) break;
    if (!covered.has(u)) missing.push(u);
  }

  // Politeness.
  let politeness = 0;
  const byHost = new Map<string, Prepared[]>();
  for (const p of all) {
    if (!sites.has(p.e.host)) continue;
    const list = byHost.get(p.e.host) ?? [];
    list.push(p);
    byHost.set(p.e.host, list);
  }
  for (const p of scored) {
    if (sites.has(p.e.host) && p.e.inflightAtStart > 1) {
      politeness++;
      note('concurrency', p.e.host, `${p.e.url} started with ${p.e.inflightAtStart} requests open`);
    }
  }
  for (const [host, list] of byHost) {
    const gap = gapOf(host);
    for (let i = 1; i < list.length; i++) {
      const prev = (list[i - 1] as Prepared).e;
      const next = list[i] as Prepared;
      const delta = next.e.startMs - prev.endMs;
      if (next.scored && delta < gap - tolerance) {
        politeness++;
        note(
          'gap',
          host,
          `${next.e.url} started ${delta.toFixed(1)} ms after the previous response ended (gap ${gap} ms)`,
        );
      }
    }
  }

  // robots.txt.
  let robotsViolations = 0;
  for (const [host, list] of byHost) {
    const policy = policies.get(host) ?? null;
    const firstRobots = list.find((p) => p.robots);
    for (const p of list) {
      if (!p.scored || p.robots) continue;
      let kind: string | null = null;
      if (policy === 'deny') kind = 'robots-5xx';
      else if (policy !== null && !isAllowed(policy, p.path)) kind = 'robots-disallowed';
      else if (firstRobots === undefined || p.e.startMs < firstRobots.e.endMs)
        kind = 'robots-not-first';
      if (kind !== null) {
        robotsViolations++;
        note(kind, host, p.e.url);
      }
    }
  }

  // Duplicates and classes.
  let duplicates = 0;
  const classes = { useful: 0, trap: 0, variant: 0, other: 0 };
  const byFamily: Record<string, number> = Object.fromEntries(TRAP_FAMILIES.map((f) => [f, 0]));
  const byVariant = { noop: 0, repeat: 0 };
  let probes = 0;
  const sitemaps = new Set(input.manifest.sitemaps);
  const settledAt = new Map<string, number>();
  for (const p of scored) {
    if (p.robots) continue;
    const site = sites.get(p.e.host);
    const settled = p.canonical === null ? undefined : settledAt.get(p.canonical);
    const repeat = site !== undefined && settled !== undefined && settled <= p.e.startMs;
    if (repeat) {
      duplicates++;
      note('duplicate', p.e.host, p.canonical ?? p.e.url);
    }
    const policy = policies.get(p.e.host) ?? null;
    const c = classifyFetch({
      canonical: p.canonical,
      status: p.e.status,
      site,
      repeat,
      allowed: policy === null || (policy !== 'deny' && isAllowed(policy, p.path)),
      expected,
      sitemaps,
    });
    classes[c.cls]++;
    if (c.family !== undefined) byFamily[c.family] = (byFamily[c.family] ?? 0) + 1;
    if (c.variant !== undefined) byVariant[c.variant]++;
    if (c.probe === true) probes++;
    if (site !== undefined && p.canonical !== null && isFinal(p.e) && !unsettled.has(p.e.seq))
      settledAt.set(p.canonical, Math.min(settled ?? Number.POSITIVE_INFINITY, p.e.endMs));
  }
  const pages = scored.filter((p) => !p.robots).length;
  const share = (n: number): number => (pages === 0 ? 0 : n / pages);
  const durationS = input.durationS ?? spanS(scored.map((p) => p.e));

  return {
    requests: scored.length,
    pages,
    expected: expected.size,
    covered: covered.size,
    coverage: expected.size === 0 ? 1 : covered.size / expected.size,
    missing,
    politeness_violations: politeness,
    robots_violations: robotsViolations,
    duplicate_fetches: duplicates,
    trap_pages: classes.trap,
    useful_fetches: classes.useful,
    trap_fetches: classes.trap,
    variant_fetches: classes.variant,
    other_fetches: classes.other,
    probe_fetches: probes,
    trap_fetch_share: share(classes.trap),
    variant_duplicate_share: share(classes.variant),
    trap_by_family: byFamily,
    variant_by_kind: byVariant,
    useful_pages: covered.size,
    duration_s: durationS,
    useful_pages_per_s: durationS > 0 ? covered.size / durationS : 0,
    violations,
  };
}
