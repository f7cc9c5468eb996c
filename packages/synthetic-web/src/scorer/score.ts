/**
 * The scorer: reads a request log against a manifest and reports coverage, politeness, robots,
 * duplicate and trap figures. Rules are documented in the package README ("Scorer rules").
 */
import { canonicalizeUrl, isTrapUrl } from '../canonical.js';
import {
  isAllowed,
  parseRobots,
  policyFor,
  robotsPathOf,
  type RobotsPolicy,
} from '../robots/matcher.js';
import type { RequestLogEntry, ScoreInput, ScoreReport, SiteInfo, Violation } from '../types.js';

const MAX_MISSING = 50;
const MAX_VIOLATIONS = 100;

type Policy = RobotsPolicy | null | 'deny';

function policyOf(site: SiteInfo, token: string): Policy {
  if (site.robots === '5xx') return 'deny';
  if (site.robotsTxt === null) return null;
  return policyFor(parseRobots(site.robotsTxt), token);
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

/** Scores a crawl (see README "Scorer rules"). */
export function scoreCrawl(input: ScoreInput): ScoreReport {
  const tolerance = input.toleranceMs ?? 2;
  const since = input.sinceMs ?? Number.NEGATIVE_INFINITY;
  const sites = new Map(input.manifest.hosts.map((h) => [h.host, h]));
  const policies = new Map<string, Policy>();
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

  // Duplicates and traps.
  let duplicates = 0;
  let traps = 0;
  const settledAt = new Map<string, number>();
  for (const p of scored) {
    if (p.robots || p.canonical === null) continue;
    if (isTrapUrl(p.canonical)) traps++;
    if (!sites.has(p.e.host)) continue;
    const settled = settledAt.get(p.canonical);
    if (settled !== undefined && settled <= p.e.startMs) {
      duplicates++;
      note('duplicate', p.e.host, p.canonical);
    }
    if (isFinal(p.e))
      settledAt.set(p.canonical, Math.min(settled ?? Number.POSITIVE_INFINITY, p.e.endMs));
  }

  return {
    requests: scored.length,
    pages: scored.filter((p) => !p.robots).length,
    expected: expected.size,
    covered: covered.size,
    coverage: expected.size === 0 ? 1 : covered.size / expected.size,
    missing,
    politeness_violations: politeness,
    robots_violations: robotsViolations,
    duplicate_fetches: duplicates,
    trap_pages: traps,
    violations,
  };
}
