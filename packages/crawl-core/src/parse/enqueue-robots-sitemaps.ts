import type { EnqueueUrl } from '@crawler/frontier';
import { checkTrapRules, DEFAULT_TRAP_LIMITS } from '@crawler/domain/traps';
import { frontierEntry } from '@crawler/domain/url';
import type { AgentResources } from '../agent-resources';
import { SITEMAP_LIMITS, SITEMAP_MIN_TIER } from './sitemap-limits';

/**
 * robots.txt `Sitemap:` lines (at most `maxRobotsSitemaps`) go through the frontier as sitemap
 * documents like any URL (their host's robots.txt and pace apply), at the depth of the URL whose
 * lease fetched the robots.txt, so their pages (one hop further) obey the depth limit; a
 * sitemap whose pages would be too deep, or whose URL breaks a trap rule, is not enqueued.
 * They go in the default tier, never ahead of seeds. Returns how many were enqueued.
 */
export async function enqueueRobotsSitemaps(
  r: AgentResources,
  lines: readonly string[],
  depth: number,
): Promise<number> {
  const limits = { ...DEFAULT_TRAP_LIMITS, maxDepth: r.settings.maxDepth() };
  const entries: EnqueueUrl[] = [];
  for (const raw of lines.slice(0, SITEMAP_LIMITS.maxRobotsSitemaps)) {
    const e = frontierEntry(raw, undefined, { maxLength: limits.maxUrlLength });
    if (!e.ok || checkTrapRules(e.entry.url, depth + 1, limits) !== null) continue;
    entries.push({
      ...e.entry,
      depth,
      priority: SITEMAP_MIN_TIER,
      source: 'sitemap-file',
    });
  }
  await r.links.add(entries);
  return entries.length;
}
