import type { Frontier } from '@crawler/frontier';
import { robotsKey } from '@crawler/crawl-core';
import type { AnalyticsStore } from '@crawler/analytics';
import type { RedisClient } from '@crawler/adapters/redis';
import { decodeStoredRobots, parseRobots, type StoredRobots } from '@crawler/domain/robots';
import type { RobotsView } from './host-details.types';

const LAST_ROBOTS_SQL = `
SELECT url FROM fetches
WHERE host = {host:String} AND url LIKE '%/robots.txt'
ORDER BY fetched_at DESC LIMIT 1`;

/**
 * The robots.txt agents hold for a host, from their shared Redis cache (key
 * `<shard prefix>robots:<origin>`, crawl-core's `robotsKey`). The origin (scheme and port) is
 * that of the host's last robots.txt fetch in ClickHouse, else http and https.
 */
export async function readRobots(
  deps: { analytics: AnalyticsStore; frontier: Frontier; redis: RedisClient; uaToken: string },
  host: string,
): Promise<RobotsView | null> {
  const [last] = await deps.analytics.queryJson<{ url: string }>(LAST_ROBOTS_SQL, { host });
  const origins = last ? [new URL(last.url).origin] : [`http://${host}`, `https://${host}`];
  for (const origin of origins) {
    const raw = await deps.redis.get(robotsKey(deps.frontier, host, origin));
    if (raw === null) continue;
    // The agents' robots cache entry (packages/crawl-core/src/robots/robots-cache.ts writes it).
    const stored = decodeStoredRobots(raw);
    if (!stored) continue;
    return robotsView(`${origin}/robots.txt`, stored, deps.uaToken);
  }
  return null;
}

function robotsView(url: string, s: StoredRobots, uaToken: string): RobotsView {
  const verdict =
    s.status >= 200 && s.status < 300
      ? 'rules'
      : s.status >= 400 && s.status < 500
        ? 'allow_all'
        : 'disallow_all';
  const rules = verdict === 'rules' ? parseRobots(s.body, url, uaToken) : null;
  const count = (re: RegExp) => s.body.split(/\r\n|\r|\n/).filter((l) => re.test(l)).length;
  return {
    url,
    status: s.status,
    error: s.error ?? null,
    fetched_at: new Date(s.fetchedAt).toISOString(),
    body: s.body,
    rules_summary: {
      verdict,
      root_allowed: rules ? rules.isAllowed(new URL('/', url).toString()) : verdict === 'allow_all',
      crawl_delay_s: rules?.crawlDelayS ?? null,
      sitemaps: rules?.sitemaps ?? [],
      allow_lines: count(/^\s*allow\s*:/i),
      disallow_lines: count(/^\s*disallow\s*:/i),
    },
  };
}
