import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/analytics';
import { checkTrapRules } from '@crawler/domain/traps';
import { frontierEntry } from '@crawler/domain/url';
import { isoOfClickhouse } from '../clickhouse/clickhouse-time';
import type { HostPolicyRepository } from '../db/host-policy-repository';
import { inspectUrlInput, type HistoryRow, type UrlInspection } from './inspect-url.types';
import { urlVerdict } from './url-verdict';
import { qualityRuleOf, readHostQuality } from './host-quality-reader';
import { readBlockRules } from './block-rules-reader';
import type { RedisClient } from '@crawler/adapters/redis';
import type { QualityLimits } from '@crawler/domain/quality';

/** The part of the re-crawl store the inspector reads (apps/coordinator/src/recrawl). */
export interface RecrawlStateReader {
  state(host: string, urlFp: string): Promise<{ intervalMs: number; dueAt: number } | null>;
}

export interface InspectUrlDeps {
  analytics: AnalyticsStore;
  frontier: Frontier;
  /** Where agents keep each host's crawl-quality state. */
  redis: RedisClient;
  /** The crawl-quality thresholds agents apply. */
  qualityLimits: QualityLimits;
  policies: HostPolicyRepository;
  /** Absent until the coordinator builds a re-crawl store: `recrawl` is then null. */
  recrawl?: RecrawlStateReader | undefined;
  /** HOST_DAILY_BUDGET: pages a host may get per UTC day unless its policy says otherwise. */
  defaultDailyBudget: number;
}

/**
 * Pages the host may still get today (UTC day), as the frontier counts them (daily-budget.lua);
 * null when unlimited (allowlisted, or a budget of 0).
 */
export function budgetLeftToday(
  fields: Record<string, string>,
  defaultBudget: number,
  now: number,
): number | null {
  if (fields.allowlisted === '1') return null;
  const limit = Number(fields.daily_budget ?? defaultBudget);
  if (limit <= 0) return null;
  const today = Math.floor(now / 86_400_000);
  const used = Number(fields.budget_day) === today ? Number(fields.budget_used ?? 0) : 0;
  return limit - used;
}

// (host, url_fp) is a prefix-compatible filter on the sorting key (host, fetched_at, url_fp):
// only the host's granules are read.
const HISTORY_SQL = `
SELECT toString(fetched_at) AS fetched_at, status, error_code, fetch_ms, bytes, change,
       record_type, warc_key, warc_offset, warc_length, duplicate_of
FROM fetches FINAL
WHERE host = {host:String} AND url_fp = {fp:String}
ORDER BY fetched_at DESC LIMIT 100
SETTINGS do_not_merge_across_partitions_select_final = 1`;

type Raw = Record<keyof HistoryRow, string | number>;

const PAGE_TEXT_CHARS = 20_000;

/**
 * `GET /v1/urls?url=`: everything the crawl knows about one URL (fetch history, captures, the
 * newest parsed page, its re-crawl schedule) and a verdict on why it was or was not fetched.
 */
export async function inspectUrl(deps: InspectUrlDeps, raw: unknown): Promise<UrlInspection> {
  const input = inspectUrlInput.parse(raw);
  const n = frontierEntry(input.url);
  if (!n.ok) throw new Error('unreachable: the schema normalizes the URL');
  const { url, urlFp: fp, host } = n.entry;
  const [rows, pages, policy, live, state, [seen], dead, recrawl, quality, blockRules] =
    await Promise.all([
      deps.analytics.queryJson<Raw>(HISTORY_SQL, { host, fp }),
      deps.analytics.listPages(fp, 1),
      deps.policies.get(host),
      deps.frontier.hostPolicy(host),
      deps.frontier.hostState(host),
      deps.frontier.seenBatch([{ urlFp: fp, host }]),
      deps.frontier.deadLettersOfHost(host),
      deps.recrawl ? deps.recrawl.state(host, fp) : Promise.resolve(null),
      readHostQuality(deps.redis, deps.frontier, host, deps.qualityLimits),
      // The block rules agents apply, as published under the crawl's key prefix.
      readBlockRules(deps.redis, deps.frontier.keys.prefix),
    ]);
  const history: HistoryRow[] = rows.map((r) => ({
    fetched_at: isoOfClickhouse(String(r.fetched_at)),
    status: Number(r.status),
    error_code: String(r.error_code),
    fetch_ms: Number(r.fetch_ms),
    bytes: Number(r.bytes),
    change: String(r.change),
    record_type: String(r.record_type),
    warc_key: String(r.warc_key),
    warc_offset: Number(r.warc_offset),
    warc_length: Number(r.warc_length),
    duplicate_of: String(r.duplicate_of),
  }));
  const deadLetter = dead.find((d) => d.url === url) ?? null;
  // A URL never seen nor tried could only have been refused as a link.
  const neverQueued = history.length === 0 && !seen;
  const blockMatch = blockRules.match(url, host);
  const now = Date.now();
  const verdict = urlVerdict({
    history,
    blocked: live.blocked || (policy?.blocked ?? false),
    blockRule: blockMatch,
    seen: seen ?? false,
    queuedOnHost: state.queued,
    deadLetter,
    // Only for URLs never seen: a seen URL got past the rules when it was discovered.
    trapRule: neverQueued ? checkTrapRules(url, 0) : null,
    qualityRule: qualityRuleOf(quality, url, { asLink: neverQueued }),
    recrawlDueAt: recrawl?.dueAt ?? null,
    hostNextAt: Number(state.fields.next_at ?? 0),
    budgetLeft: budgetLeftToday(state.fields, deps.defaultDailyBudget, now),
    duplicateBudgetLeft: quality.budgetLeft(now),
    now,
  });
  const p = pages[0];
  return {
    url,
    url_fp: fp,
    host,
    history,
    captures: history.filter((h) => h.warc_key !== '' && h.warc_length > 0),
    page: p
      ? {
          title: p.title,
          description: p.description,
          lang: p.lang,
          text: p.text.slice(0, PAGE_TEXT_CHARS),
          links: p.out_links.map((u, i) => ({
            url: u,
            nofollow: p.out_links_nofollow[i] ?? false,
          })),
          canonical: p.canonical,
          noindex: p.noindex,
          simhash: p.simhash,
          content_hash: p.content_hash,
        }
      : null,
    verdict,
    recrawl: recrawl
      ? { interval_ms: recrawl.intervalMs, due_at: new Date(recrawl.dueAt).toISOString() }
      : null,
  };
}
