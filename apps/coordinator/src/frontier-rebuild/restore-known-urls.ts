import type { EnqueueUrl, Frontier } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/analytics';
import { checkTrapRules, type BlockRuleMatcher, type TrapLimits } from '@crawler/domain/traps';
import { hostOf, urlFingerprint } from '@crawler/domain/url';

/** URLs read from `urls` per query (keyset pages in url_fp order). */
const URLS_PAGE = 5000;
/** Parsed pages (rows of `pages`, each with up to 1,000 links) read per query. */
const PAGES_PAGE = 1000;

/** The answers an agent retries (pipeline/telemetry-step.ts, pipeline/fetch-step.ts): a failed last attempt worth another. */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
/** Error codes of attempts the agent retries or backs off from (fetch-error.ts, truncations). */
const RETRY_CODES = new Set([
  'dns_failure',
  'connect_timeout',
  'connect_refused',
  'tls_error',
  'first_byte_timeout',
  'total_timeout',
  'network',
  'too_slow',
  'disconnect',
]);

interface UrlRow {
  url_fp: string;
  url: string;
  host: string;
  status: number | string;
  error_code: string;
  redirect_to: string;
}

/** The latest state of each URL, a keyset page at a time. */
const URLS_SQL = `
SELECT url_fp, url, host, status, error_code, redirect_to
FROM urls FINAL
WHERE url_fp > {after:String}
ORDER BY url_fp
LIMIT ${URLS_PAGE}`;

/** Depth of each of some URLs (`urls` has none): `fetches` is sorted by host first. */
const DEPTH_SQL = `
SELECT url_fp, max(depth) AS depth
FROM fetches
WHERE host IN {hosts:Array(String)} AND url_fp IN {fps:Array(String)}
GROUP BY url_fp`;

/**
 * Parsed pages with their links, a keyset page at a time, in the table's own order (url_fp,
 * fetched_at), so each query reads one range in order and stops (a `fetched_at DESC` or a
 * `LIMIT 1 BY` would sort the rest of the table every time).
 */
const PAGES_SQL = `
SELECT url_fp, url, host, depth, nofollow, out_links
FROM pages
WHERE url_fp > {after:String}
ORDER BY url_fp, fetched_at
LIMIT ${PAGES_PAGE}`;

/** Calls `fn` with every URL `urls` knows, in url_fp order, a page at a time. */
async function forEachKnownUrl(
  analytics: AnalyticsStore,
  signal: AbortSignal | undefined,
  fn: (rows: UrlRow[]) => Promise<void>,
): Promise<void> {
  for (let after = ''; ;) {
    signal?.throwIfAborted();
    const rows = await analytics.queryJson<UrlRow>(URLS_SQL, { after });
    if (rows.length === 0) return;
    await fn(rows);
    after = rows[rows.length - 1]!.url_fp;
    if (rows.length < URLS_PAGE) return;
  }
}

async function depthsOf(
  analytics: AnalyticsStore,
  rows: readonly UrlRow[],
): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const found = await analytics.queryJson<{ url_fp: string; depth: number | string }>(DEPTH_SQL, {
    hosts: [...new Set(rows.map((r) => r.host))],
    fps: rows.map((r) => r.url_fp),
  });
  return new Map(found.map((r) => [r.url_fp, Number(r.depth)]));
}

function isRobotsTxt(url: string): boolean {
  return url.endsWith('/robots.txt');
}

/** A last attempt that failed in a way the agent would have tried again. */
function failedTransiently(r: UrlRow): boolean {
  return RETRY_STATUSES.has(Number(r.status)) || RETRY_CODES.has(r.error_code);
}

export interface FetchedUrlsReport {
  /** URLs ClickHouse knows (fetched, or refused by robots.txt, at least once). */
  knownUrls: number;
  /** Of those, how many were not in the seen set. */
  newlySeen: number;
}

/**
 * Every URL ClickHouse knows goes into the seen set, so links to it are not fetched again as
 * new — except those whose last attempt failed transiently (a 5xx, 429, timeout…): their retry
 * waited in the lost queue, and {@link requeueFailedAndRedirects} enqueues them (which marks
 * them seen). First in a rebuild, before anything is queued: an agent working meanwhile finds
 * nothing to fetch until every known URL is seen.
 */
export async function markKnownUrlsSeen(deps: {
  analytics: AnalyticsStore;
  /** The frontier: its markSeen-2.lua puts URLs in the seen set without queueing them. */
  seen: Pick<Frontier, 'markSeen'>;
  signal?: AbortSignal;
}): Promise<FetchedUrlsReport> {
  const report: FetchedUrlsReport = { knownUrls: 0, newlySeen: 0 };
  await forEachKnownUrl(deps.analytics, deps.signal, async (rows) => {
    report.knownUrls += rows.length;
    const done = rows.filter((r) => !failedTransiently(r) || isRobotsTxt(r.url));
    report.newlySeen += await deps.seen.markSeen(
      done.map((r) => ({ urlFp: r.url_fp, host: r.host })),
    );
  });
  return report;
}

/**
 * Queues again what waited in the lost queues among the URLs ClickHouse knows: those whose last
 * attempt failed transiently, and redirect targets never fetched (the agent enqueued them when
 * it met the redirect). Run after {@link markKnownUrlsSeen}: targets already fetched are seen.
 */
export async function requeueFailedAndRedirects(deps: {
  analytics: AnalyticsStore;
  frontier: Frontier;
  blockRules: BlockRuleMatcher;
  signal?: AbortSignal;
}): Promise<{ retried: number; redirects: number }> {
  const report = { retried: 0, redirects: 0 };
  await forEachKnownUrl(deps.analytics, deps.signal, async (rows) => {
    const retry = rows.filter((r) => failedTransiently(r) && !isRobotsTxt(r.url));
    const redirects = rows.filter(
      (r) => r.redirect_to !== '' && r.error_code !== 'redirect_limit' && !isRobotsTxt(r.url),
    );
    if (retry.length === 0 && redirects.length === 0) return;
    const depths = await depthsOf(deps.analytics, [...retry, ...redirects]);
    if (retry.length > 0)
      report.retried += (
        await deps.frontier.enqueue(
          retry.map((r) => ({
            url: r.url,
            urlFp: r.url_fp,
            host: r.host,
            depth: depths.get(r.url_fp) ?? 0,
            source: 'link' as const,
          })),
        )
      ).accepted;
    const targets: EnqueueUrl[] = [];
    for (const r of redirects) {
      const host = hostOf(r.redirect_to);
      if (host === '' || deps.blockRules.match(r.redirect_to, host)) continue;
      targets.push({
        url: r.redirect_to,
        urlFp: urlFingerprint(r.redirect_to),
        host,
        depth: depths.get(r.url_fp) ?? 0,
        redirects: 1,
        source: 'redirect',
      });
    }
    if (targets.length > 0) report.redirects += (await deps.frontier.enqueue(targets)).accepted;
  });
  return report;
}

interface PageRow {
  url_fp: string;
  url: string;
  host: string;
  depth: number | string;
  nofollow: boolean | number | string;
  out_links: string[];
}

export interface OutlinksReport {
  /** Parsed pages whose links were read (the newest parse of each URL). */
  pagesRead: number;
  /** Links new to the frontier, queued. */
  linksEnqueued: number;
  /** Links kept out as the agent would: trap rules, operator block rules, nofollow pages. */
  linksDropped: number;
}

/**
 * The links of every parsed page (ClickHouse `pages`, the newest parse of each URL), as the
 * agent would have enqueued them: not from nofollow pages, within the trap rules and the
 * operator's block rules. Those already fetched are in the seen set by now, so only links that
 * were discovered but not yet fetched are queued. A page's own hop count is not stored: its
 * same-host links count one hop (as if another site linked the page), so a restored link may go
 * up to CRAWLER_MAX_HOPS − 1 same-host hops deeper than the agent would have.
 */
export async function restoreOutlinks(deps: {
  analytics: AnalyticsStore;
  frontier: Frontier;
  blockRules: BlockRuleMatcher;
  limits: TrapLimits;
  signal?: AbortSignal;
}): Promise<OutlinksReport> {
  const report: OutlinksReport = { pagesRead: 0, linksEnqueued: 0, linksDropped: 0 };
  for (let after = ''; ;) {
    deps.signal?.throwIfAborted();
    const rows = await deps.analytics.queryJson<PageRow>(PAGES_SQL, { after });
    if (rows.length === 0) break;
    const full = rows.length === PAGES_PAGE;
    const newest = newestPerUrl(rows, full);
    report.pagesRead += newest.length;
    const urls: EnqueueUrl[] = [];
    for (const page of newest) {
      const nofollow = page.nofollow === true || page.nofollow === 1 || page.nofollow === 'true';
      if (nofollow) {
        report.linksDropped += page.out_links.length;
        continue;
      }
      const depth = Number(page.depth) + 1;
      for (const url of page.out_links) {
        const host = hostOf(url);
        const sameHost = host === page.host;
        if (
          host === '' ||
          checkTrapRules(url, depth, deps.limits, sameHost ? 1 : 0) !== null ||
          deps.blockRules.match(url, host) !== null
        ) {
          report.linksDropped++;
          continue;
        }
        urls.push({
          url,
          urlFp: urlFingerprint(url),
          host,
          depth,
          source: 'link',
          hops: sameHost ? 1 : 0,
          ...(sameHost ? {} : { fromHost: page.host }),
        });
      }
    }
    if (urls.length > 0) report.linksEnqueued += (await deps.frontier.enqueue(urls)).accepted;
    if (!full) break;
    after = newest[newest.length - 1]!.url_fp;
  }
  return report;
}

/**
 * The newest row of each URL among rows in (url_fp, fetched_at) order. When more may follow
 * (`full`), the last URL's rows are left for the next page, which starts after the URL before
 * it — unless it fills the whole page (a URL parsed over 1,000 times): its newest row here
 * stands for it.
 */
function newestPerUrl(rows: readonly PageRow[], full: boolean): PageRow[] {
  const out: PageRow[] = [];
  for (const r of rows) {
    if (out.length > 0 && out[out.length - 1]!.url_fp === r.url_fp) out[out.length - 1] = r;
    else out.push(r);
  }
  if (full && out.length > 1) out.pop();
  return out;
}
