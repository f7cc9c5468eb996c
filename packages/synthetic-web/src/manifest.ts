/**
 * The manifest: what a correct polite crawler fetches. Computed by walking the resource model
 * (not the rendered HTML) from the seeds, so it is fast even for 5,000 hosts; a test checks it
 * against a real crawl of the rendered web.
 */
import { isTrapPathKey } from './canonical.js';
import type { HostHeader } from './model/assign.js';
import { revisionOf } from './model/changes.js';
import type { PlanCache } from './model/plan.js';
import { originOf } from './model/realistic.js';
import type { HostPlan, LinkSpec } from './model/resources.js';
import { isAllowed, robotsPolicyOf, type HostRobots } from './robots/matcher.js';
import { robotsText, sitemapUrls } from './robots/variants.js';
import type { Manifest, SiteInfo } from './types.js';

/** Redirect chains count at most this many URLs (the first request plus 4 followed hops). */
export const MAX_CHAIN_URLS = 5;

/** Everything the manifest needs to know about the web. */
export interface ManifestSource {
  seed: number;
  port: number;
  token: string;
  headers: readonly HostHeader[];
  plans: PlanCache;
}

/** Public description of each host. */
export function siteInfos(src: ManifestSource): SiteInfo[] {
  return src.headers.map((h) => {
    const text = robotsText(h, src.token, sitemapUrls(h, src.port));
    const policy = text === null ? null : robotsPolicyOf(text, src.token);
    return {
      index: h.index,
      host: h.host,
      ip: h.ip,
      kind: h.kind,
      robots: h.robots,
      crawlDelayS: policy?.crawlDelayS ?? null,
      pages: h.pages,
      features: h.features.slice(),
      robotsTxt: text,
    };
  });
}

/** Absolute URL of a path on host i. */
export function urlOf(src: ManifestSource, host: number, path: string): string {
  return `${originOf(src.headers[host] as HostHeader, src.port)}${path}`;
}

/** Outgoing links of a page-like resource (copies link what their original links). */
function linksOf(plan: HostPlan, path: string): LinkSpec[] {
  const r = plan.resources.get(path);
  if (r?.type === 'page') return r.links;
  if (r?.type === 'copy') return linksOf(plan, r.of);
  return [];
}

/** The cycle-independent part: expected URLs (sorted) and sitemap URLs. */
export interface CrawlSet {
  expected: string[];
  sitemaps: string[];
  /** Expected URL -> [host, path] for change lookups. */
  where: Map<string, [number, string]>;
}

/** Walks the model from every seed (see README "Manifest"). */
export function computeCrawlSet(src: ManifestSource): CrawlSet {
  const policies = new Map<number, HostRobots>();
  const policyOf = (i: number): HostRobots => {
    let p = policies.get(i);
    if (p === undefined) {
      const h = src.headers[i] as HostHeader;
      if (h.robots === '5xx') p = 'deny';
      else {
        const text = robotsText(h, src.token, sitemapUrls(h, src.port));
        p = text === null ? null : robotsPolicyOf(text, src.token);
      }
      policies.set(i, p);
    }
    return p;
  };
  const bestHops = new Map<string, number>();
  const where = new Map<string, [number, string]>();
  const queue: Array<[number, string, number]> = src.headers.map((h) => [h.index, '/', 0]);
  for (let qi = 0; qi < queue.length; qi++) {
    const [host, path, hops] = queue[qi] as [number, string, number];
    const key = `${host} ${path}`;
    const prev = bestHops.get(key);
    if (prev !== undefined && prev <= hops) continue;
    bestHops.set(key, hops);
    const policy = policyOf(host);
    if (policy === 'deny' || (policy !== null && !isAllowed(policy, path)) || isTrapPathKey(path))
      continue;
    if (prev === undefined) where.set(urlOf(src, host, path), [host, path]);
    const plan = src.plans.get(host);
    const r = plan.resources.get(path);
    if (r?.type === 'redirect') {
      if (hops + 1 < MAX_CHAIN_URLS) queue.push([r.target.host, r.target.path, hops + 1]);
    } else if (prev === undefined) {
      for (const l of linksOf(plan, path)) queue.push([l.host, l.path, 0]);
    }
  }
  const sitemaps: string[] = [];
  for (const h of src.headers) {
    for (const r of src.plans.get(h.index).resources.values()) {
      if (r.type === 'sitemap') sitemaps.push(urlOf(src, h.index, r.path));
    }
  }
  return { expected: [...where.keys()].sort(), sitemaps: sitemaps.sort(), where };
}

/** Expected URLs whose content in `cycle` differs from cycle 1 (sorted). */
export function changedUrls(src: ManifestSource, set: CrawlSet, cycle: number): string[] {
  if (cycle <= 1) return [];
  const out: string[] = [];
  for (const [url, [host, path]] of set.where) {
    const h = src.headers[host] as HostHeader;
    if (!h.features.includes('changing')) continue;
    let r = src.plans.get(host).resources.get(path);
    if (r?.type === 'copy') r = src.plans.get(host).resources.get(r.of);
    if (r?.type === 'page' && revisionOf(src.seed, h, r.id, cycle) !== 1) out.push(url);
  }
  return out.sort();
}

/** Assembles the manifest of one cycle. */
export function buildManifest(
  src: ManifestSource,
  set: CrawlSet,
  cycle: number,
  hosts: SiteInfo[],
): Manifest {
  return {
    cycle,
    port: src.port,
    seeds: src.headers.map((h) => urlOf(src, h.index, '/')),
    expected: set.expected,
    sitemaps: set.sitemaps,
    changed: changedUrls(src, set, cycle),
    hosts,
  };
}
