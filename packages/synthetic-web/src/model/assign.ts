/**
 * Host roles: which host is hostile, which robots.txt variant and feature tags each host gets,
 * and its heavy-tailed page count. Cheap (no per-page work), so start-up stays fast for 5,000
 * hosts; the per-page plan is built lazily in plan.ts.
 */
import { mix, Rng } from '../prng.js';
import type { RobotsVariant } from '../types.js';
import type { HostRealism } from './realistic.js';

/** Hostile host kinds (at most one host each). */
export const HOSTILE_KINDS = [
  'huge-page',
  'gzip-bomb',
  'slow',
  'trickle',
  'huge-headers',
  'malformed',
  'redirect-loop',
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

/** robots.txt variants every web with enough hosts contains at least once. */
export const ROBOTS_VARIANTS: readonly RobotsVariant[] = [
  'missing',
  'ok',
  '5xx',
  '403',
  'bom-crlf',
  'redirect',
  'longest-match',
  'wildcards',
  'other-bot',
  'product-token',
  'crawl-delay',
];

/** Feature tags of normal hosts; every web with >= 50 hosts contains each at least once. */
export const FEATURES = [
  'sitemap-urlset',
  'sitemap-index',
  'sitemap-text',
  'trap-calendar',
  'trap-session',
  'trap-loop',
  'redirect-chain',
  'redirect-loop',
  'redirect-long',
  'redirect-cross',
  'statuses',
  'duplicates',
  'non-html',
  'dot-segments',
  'base-href',
  'changing',
] as const;
/**
 * Trap families added with `trapFamilies: true` (each on a share of the normal hosts; with 50 or
 * more hosts each at least once). `trap-session` hosts then also carry session ids in their links.
 */
export const TRAP_FAMILY_FEATURES = [
  'trap-calendars',
  'trap-pager',
  'trap-facets',
  'soft-404',
  'noop-params',
] as const;
export type Feature =
  (typeof FEATURES)[number] | (typeof TRAP_FAMILY_FEATURES)[number] | 'sitemap-malformed';

/** Chance of each trap family (and of `trap-session`, added on top) per eligible host. */
const TRAP_FAMILY_ODDS = 0.06;

/** Chance of each feature on hosts beyond the required one. */
const FEATURE_ODDS: Record<(typeof FEATURES)[number], number> = {
  'sitemap-urlset': 0.04,
  'sitemap-index': 0.03,
  'sitemap-text': 0.03,
  'trap-calendar': 0.02,
  'trap-session': 0.02,
  'trap-loop': 0.02,
  'redirect-chain': 0.05,
  'redirect-loop': 0.02,
  'redirect-long': 0.02,
  'redirect-cross': 0.04,
  statuses: 0.05,
  duplicates: 0.06,
  'non-html': 0.08,
  'dot-segments': 0.05,
  'base-href': 0.3,
  changing: 0.2,
};

const ROBOTS_ODDS: Array<[RobotsVariant, number]> = [
  ['ok', 0.45],
  ['missing', 0.2],
  ['403', 0.04],
  ['5xx', 0.015],
  ['longest-match', 0.06],
  ['wildcards', 0.06],
  ['other-bot', 0.06],
  ['product-token', 0.04],
  ['crawl-delay', 0.035],
  ['bom-crlf', 0.02],
  ['redirect', 0.02],
];

/** The cheap per-host facts, fixed at start-up. */
export interface HostHeader {
  index: number;
  host: string;
  ip: string;
  kind: 'normal' | HostileKind;
  robots: RobotsVariant;
  crawlDelayS: number | null;
  /** Tree pages (home included). */
  pages: number;
  features: Feature[];
  /** For `redirect-cross`: the host index the redirect points to. */
  crossTarget: number | null;
  /**
   * Same-host links of tree pages carry a session id in a path parameter (`;jsessionid=…`), new
   * on every render: the `trap-session` hosts of a web with trap families.
   */
  sessionInPath: boolean;
  /** Served over TLS (the realistic profile with a certificate); absent = plain HTTP. */
  https?: boolean;
  /** The realistic profile's per-host behaviour (absent on the simple web). */
  realism?: HostRealism;
}

/** `s%04d.web.test` for host i. */
export function hostName(i: number): string {
  return `s${String(i).padStart(4, '0')}.web.test`;
}

/** Loopback address of host i: 127.1.(1 + i / 250).(1 + i % 250), never 127.0.0.1. */
export function hostIp(i: number): string {
  return `127.1.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
}

/** Largest host count the address scheme supports. */
export const MAX_HOSTS = 250 * 254;

/** robots variants that serve a text body (so they can carry Sitemap lines). */
export function hasRobotsBody(v: RobotsVariant): boolean {
  return v !== 'missing' && v !== '5xx' && v !== '403';
}

function paretoPages(rng: Rng, maxPages: number): number {
  const u = rng.next();
  const n = Math.floor(5 * Math.pow(1 - u, -1 / 1.16));
  return Math.max(1, Math.min(maxPages, n));
}

function eligible(f: (typeof FEATURES)[number], h: HostHeader): boolean {
  if (h.kind !== 'normal' || h.robots === '5xx' || h.robots === 'crawl-delay') return false;
  if (f.startsWith('sitemap-') || f === 'dot-segments') return hasRobotsBody(h.robots);
  return true;
}

/**
 * Assigns roles to hosts deterministically from the seed.
 * @param seed PRNG seed.
 * @param count number of hosts.
 * @param maxPages cap of the page count per host.
 * @param hostile whether to include hostile hosts.
 * @param trapFamilies whether to add the trap families ({@link TRAP_FAMILY_FEATURES}); the other
 *   roles are the same either way.
 */
export function assignHosts(
  seed: number,
  count: number,
  maxPages: number,
  hostile: boolean,
  trapFamilies = false,
): HostHeader[] {
  const rng = new Rng(mix(seed, 'assign', count));
  const headers: HostHeader[] = [];
  for (let i = 0; i < count; i++) {
    headers.push({
      index: i,
      host: hostName(i),
      ip: hostIp(i),
      kind: 'normal',
      robots: 'ok',
      crawlDelayS: null,
      pages: paretoPages(new Rng(mix(seed, 'pages', i)), maxPages),
      features: [],
      crossTarget: null,
      sessionInPath: false,
    });
  }
  const order = rng.shuffle(headers.map((h) => h.index));
  let pos = 0;
  if (hostile) {
    for (const kind of HOSTILE_KINDS) {
      const idx = order[pos++];
      if (idx === undefined) break;
      const h = headers[idx] as HostHeader;
      h.kind = kind;
      h.pages = 1;
      if (kind === 'malformed') h.features.push('sitemap-malformed');
    }
  }
  const normals = order.slice(pos).map((i) => headers[i] as HostHeader);
  normals.forEach((h, j) => {
    const required = ROBOTS_VARIANTS[j];
    if (required !== undefined) {
      h.robots = required;
      return;
    }
    let u = rng.next();
    for (const [variant, p] of ROBOTS_ODDS) {
      h.robots = variant;
      u -= p;
      if (u < 0) break;
    }
  });
  for (const h of normals) {
    if (h.robots === 'crawl-delay') {
      h.crawlDelayS = rng.int(2, 5) / 10;
      h.pages = Math.min(h.pages, 8);
    }
  }
  // Every feature once (spread over the hosts, at most two required features per host), then extras.
  let cursor = ROBOTS_VARIANTS.length;
  for (const f of FEATURES) {
    for (let tries = 0; tries < normals.length * 2; tries++) {
      const h = normals[(cursor + tries) % Math.max(1, normals.length)];
      if (h === undefined) break;
      if (!eligible(f, h) || h.features.length >= (tries < normals.length ? 2 : 99)) continue;
      h.features.push(f);
      cursor = cursor + tries + 1;
      break;
    }
  }
  for (const h of normals) {
    for (const f of FEATURES) {
      if (!h.features.includes(f) && eligible(f, h) && rng.chance(FEATURE_ODDS[f]))
        h.features.push(f);
    }
  }
  const crossTargets = normals.filter(
    (h) => (h.robots === 'ok' || h.robots === 'missing') && h.pages > 1,
  );
  for (const h of normals) {
    if (!h.features.includes('redirect-cross')) continue;
    const targets = crossTargets.filter((t) => t.index !== h.index);
    if (targets.length === 0) {
      h.features = h.features.filter((f) => f !== 'redirect-cross');
      continue;
    }
    h.crossTarget = rng.pick(targets).index;
  }
  if (trapFamilies) assignTrapFamilies(seed, count, normals);
  for (const h of headers) h.features.sort();
  return headers;
}

function trapEligible(f: Feature, h: HostHeader): boolean {
  if (h.robots === '5xx' || h.robots === 'crawl-delay' || h.features.includes(f)) return false;
  // `wildcards` disallows `/*?print=`, which the no-op parameters use.
  if (f === 'noop-params') return h.robots !== 'wildcards' && h.pages >= 3;
  return true;
}

/**
 * Adds the trap families with a generator of their own, so the rest of the assignment is the same
 * with and without them: each family once (spread over the hosts), then each eligible host gets
 * each family with {@link TRAP_FAMILY_ODDS}.
 */
function assignTrapFamilies(seed: number, count: number, normals: HostHeader[]): void {
  const rng = new Rng(mix(seed, 'trap-families', count));
  const families: Feature[] = [...TRAP_FAMILY_FEATURES, 'trap-session'];
  const order = rng.shuffle(normals);
  families.forEach((f, i) => {
    for (let k = 0; k < order.length; k++) {
      const h = order[(i * 7 + k) % order.length] as HostHeader;
      if (!trapEligible(f, h)) continue;
      h.features.push(f);
      break;
    }
  });
  for (const h of normals) {
    for (const f of families)
      if (trapEligible(f, h) && rng.chance(TRAP_FAMILY_ODDS)) h.features.push(f);
    h.sessionInPath = h.features.includes('trap-session');
  }
}
