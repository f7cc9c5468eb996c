import { normalizeUrl } from '@crawler/domain/url';
import { isTrapUrl, type RequestLogEntry } from '@crawler/synthetic-web';
import type { FrontierSnapshot } from './frontier-snapshot';
import type { FetchRowLite } from './warc-check';

/** `WARC_WRITE_FAILED` (packages/crawl-core/src/archive/warc-failure.ts): fetched, not archived, retried. */
export const WARC_WRITE_FAILED = 'warc_write_failed';

/** The crawler's normalized form of a URL, or null for what it does not crawl (mailto:, …). */
export function normalized(url: string): string | null {
  const n = normalizeUrl(url);
  return n.ok ? n.url : null;
}

/** A final answer (2xx, 3xx, 4xx but 429): the scorer's "settled". */
function isFinalStatus(status: number): boolean {
  return status >= 200 && status < 500 && status !== 429;
}

/**
 * The URLs the crawler was shown: the links of the HTML pages the web served it (the request
 * log's `links`), normalized by the crawler's own normalizer so that forms match; each with
 * one page that links it. With `keptPages`, only links of those pages count: a page whose
 * answer the crawler did not keep (killed before it was processed, its WARC write failed) is
 * fetched again, and its links are owed only then.
 */
export function discoveredUrls(
  log: readonly RequestLogEntry[],
  keptPages?: ReadonlySet<string>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of log) {
    if (!e.links || e.links.length === 0) continue;
    const page = normalized(e.url);
    if (page === null || (keptPages && !keptPages.has(page))) continue;
    for (const link of e.links) {
      const u = normalized(link);
      if (u !== null && !out.has(u)) out.set(u, page);
    }
  }
  return out;
}

/** URLs the web gave a final answer (normalized). */
export function webSettledUrls(log: readonly RequestLogEntry[]): Set<string> {
  const out = new Set<string>();
  for (const e of log) {
    if (e.aborted || !isFinalStatus(e.status)) continue;
    const u = normalized(e.url);
    if (u !== null) out.add(u);
  }
  return out;
}

/** URLs with a fetch row of a final answer that was archived (the crawler's own record). */
export function crawlerFetchedUrls(rows: readonly FetchRowLite[]): Set<string> {
  const out = new Set<string>();
  for (const r of rows)
    if (isFinalStatus(r.status) && r.error_code !== WARC_WRITE_FAILED) out.add(r.url);
  return out;
}

/** Verdicts of the URL inspector that mean "not fetched, for a stated reason". */
const REFUSAL_REASONS = new Set(['robots', 'blocked', 'trap', 'budget', 'trap_unrecorded']);
/** Verdicts that mean the crawler has an answer for it (a duplicate or soft 404 is one too). */
const FETCHED_REASONS = new Set(['fetched', 'duplicate', 'soft_404']);

/**
 * Asks the coordinator's URL inspector (`GET /v1/urls?url=`) for each URL, a few at a time, and
 * returns each one's verdict reason (`fetched`, `robots`, `trap`, `queued`, `unknown`, …).
 */
export async function inspectUrls(
  apiUrl: string,
  token: string,
  urls: readonly string[],
  concurrency = 4,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < urls.length) {
      const url = urls[next++]!;
      let reason = 'inspector_failed';
      for (let attempt = 0; attempt < 3 && reason === 'inspector_failed'; attempt++) {
        try {
          const r = await fetch(`${apiUrl}/v1/urls?url=${encodeURIComponent(url)}`, {
            headers: { authorization: `Bearer ${token}` },
            signal: AbortSignal.timeout(30_000),
          });
          const body = (await r.json()) as { verdict?: { reason?: string } };
          if (r.ok && body.verdict?.reason) reason = body.verdict.reason;
        } catch {
          // retried
        }
      }
      out.set(url, reason);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

/** How every discovered URL ended, and the lost ones. */
export interface UrlAccount {
  discovered: number;
  fetched: number;
  queued: number;
  deadLettered: number;
  /** Inspector verdicts of URLs that were not fetched, queued nor dead-lettered. */
  refused: Record<string, number>;
  /** Each lost URL, the inspector's verdict (or `served_not_recorded`), and a page linking it. */
  lost: Array<{ url: string; reason: string; from: string }>;
}

/**
 * Accounts for every discovered URL: fetched (the crawler stored a final answer for it: a fetch
 * row), queued (host queues and lease batches), dead-lettered, or refused for a reason the URL
 * inspector states (robots, trap, blocked, budget…), or a trap URL by the web's construction
 * the inspector has no reason for (`trap_unrecorded`). What is left is lost: a URL the web served
 * but the crawler kept no record of, or one the inspector finds no reason for (`unknown`, or
 * `queued`/`not_yet_due` — only the seen set remembers it, no queue holds it).
 * @param verdicts inspector verdicts of the URLs the web never answered (asked while the
 *   coordinator ran); URLs the web answered but ClickHouse lacks were not asked: nothing in the
 *   crawl refuses a URL after fetching it.
 */
export function accountUrls(
  discovered: ReadonlyMap<string, string>,
  fetched: ReadonlySet<string>,
  frontier: FrontierSnapshot,
  verdicts: ReadonlyMap<string, string>,
): UrlAccount {
  const account: UrlAccount = {
    discovered: discovered.size,
    fetched: 0,
    queued: 0,
    deadLettered: 0,
    refused: {},
    lost: [],
  };
  for (const [url, from] of discovered) {
    if (fetched.has(url)) account.fetched++;
    else if (frontier.queued.has(url)) account.queued++;
    else if (frontier.dead.has(url)) account.deadLettered++;
    else {
      const verdict = verdicts.get(url) ?? 'served_not_recorded';
      // A trap URL of the web's own construction (a calendar month, a loop level…) that the
      // crawler dropped without a record the inspector reads — the links of a page that
      // repeats its URL family are not followed — was refused, not lost.
      const reason = verdict === 'unknown' && isTrapUrl(url) ? 'trap_unrecorded' : verdict;
      if (FETCHED_REASONS.has(reason)) account.fetched++;
      else if (REFUSAL_REASONS.has(reason))
        account.refused[reason] = (account.refused[reason] ?? 0) + 1;
      else account.lost.push({ url, reason, from });
    }
  }
  return account;
}

/**
 * The request-log entries (by `seq`) of answers the crawler fetched but could not archive (a
 * fetch row with `warc_write_failed`): it fetches those URLs again on purpose, so the scorer
 * must not count that retry as a duplicate. Each such row is matched to the web's request of
 * the same URL nearest in time.
 */
export function unarchivedRequests(
  log: readonly RequestLogEntry[],
  rows: readonly FetchRowLite[],
): Set<number> {
  const failed = rows.filter((r) => r.error_code === WARC_WRITE_FAILED && r.status > 0);
  if (failed.length === 0) return new Set();
  const byUrl = new Map<string, RequestLogEntry[]>();
  for (const e of log) {
    const u = normalized(e.url);
    if (u === null) continue;
    const list = byUrl.get(u) ?? [];
    list.push(e);
    byUrl.set(u, list);
  }
  const out = new Set<number>();
  for (const r of failed) {
    let best: RequestLogEntry | undefined;
    for (const e of byUrl.get(r.url) ?? [])
      if (!best || Math.abs(e.startMs - r.at_ms) < Math.abs(best.startMs - r.at_ms)) best = e;
    if (best && Math.abs(best.startMs - r.at_ms) < 60_000) out.add(best.seq);
  }
  return out;
}
