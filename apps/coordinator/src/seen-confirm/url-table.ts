import type { AnalyticsStore } from '@crawler/analytics';

/** url_fps per query: a `url_fp IN` list of this size reads a few granules of `urls`. */
const FPS_PER_QUERY = 5000;

/** `urls` is ordered by url_fp: the IN list is a primary-key lookup, not a scan. */
const KNOWN_SQL = `
SELECT DISTINCT url_fp
FROM urls
WHERE url_fp IN {fps:Array(String)}`;

/**
 * Which of `urlFps` the URL table knows (ClickHouse `urls`: every URL fetched, or refused by
 * robots.txt, at least once — its latest state once merged; any row will do here).
 */
export async function urlFpsInUrlTable(
  analytics: AnalyticsStore,
  urlFps: readonly string[],
): Promise<Set<string>> {
  const known = new Set<string>();
  for (let i = 0; i < urlFps.length; i += FPS_PER_QUERY) {
    const rows = await analytics.queryJson<{ url_fp: string }>(KNOWN_SQL, {
      fps: urlFps.slice(i, i + FPS_PER_QUERY),
    });
    for (const r of rows) known.add(r.url_fp);
  }
  return known;
}
