import type { BlockMatch, TrapRule } from '@crawler/domain/traps';
import type { QualityRule } from '@crawler/domain/quality';
import type { HistoryRow, UrlVerdict, VerdictReason } from './inspect-url.types';

/** What the inspector found about a URL in each store. */
export interface UrlFacts {
  history: HistoryRow[];
  /** The host's own policy blocks it. */
  blocked: boolean;
  /**
   * The published block rule agents apply to this URL, if any: a blocked host or domain
   * (`*.example.com`), or an operator's URL pattern.
   */
  blockRule: BlockMatch | null;
  seen: boolean;
  queuedOnHost: number;
  deadLetter: { reason: string; attempts: number; at: number } | null;
  trapRule: TrapRule | null;
  /** The host's crawl-quality rule that keeps this URL from being fetched, if any. */
  qualityRule: QualityRule | null;
  /** Due time of the URL's next re-crawl (epoch ms), when scheduled. */
  recrawlDueAt: number | null;
  /** The host's next allowed time (epoch ms; 0 when none). */
  hostNextAt: number;
  /** Pages the host may still get today; null when unlimited. */
  budgetLeft: number | null;
  /**
   * Pages the host may still get today since its budget was cut for duplicate bodies
   * (`duplicate_budget`); null when not cut.
   */
  duplicateBudgetLeft: number | null;
  now: number;
}

/** Error codes of fetch rows and dead letters that name a reason of their own. */
const REASON_OF_CODE: Record<string, VerdictReason> = {
  robots_denied: 'robots',
  robots_unavailable: 'robots',
  blocked: 'blocked',
  host_blocked: 'blocked',
  budget: 'budget',
  daily_budget: 'budget',
  budget_exhausted: 'budget',
  trap: 'trap',
  duplicate: 'duplicate',
};

/** What each crawl-quality rule means for a URL it matches. */
const QUALITY_DETAIL: Record<QualityRule, string> = {
  template_exhausted:
    "quality rule template_exhausted: the host's pages of this URL family kept coming back near-identical, or kept linking only more of the family and nothing new outside it (QUALITY_NOVELTY_MIN_LINKS), so the family is closed on this host and its URLs are dropped",
  pager_depth:
    "quality rule pager_depth: a pager's next/previous step past QUALITY_MAX_PAGER_DEPTH; agents drop such a link where the previous page links it (the same page linked from outside its pager is fetched)",
  facet_explosion:
    'quality rule facet_explosion: more query parameters than QUALITY_MAX_QUERY_PARAMS, or a parameter combination beyond the QUALITY_MAX_FACET_COMBOS its URL family may use',
  noop_param:
    "quality rule noop_param: it carries a query parameter that never changed this host's pages; the URL without it is crawled instead",
  soft_404: "quality rule soft_404: the page answers like the host's missing pages",
  duplicate_budget: "quality rule duplicate_budget: the host's budget was cut for duplicate bodies",
};

const answered = (r: HistoryRow) =>
  r.error_code !== 'robots_denied' && r.status >= 200 && r.status <= 399;

/** What a published block rule does to the URL. */
function blockDetail(hit: BlockMatch): string {
  return hit.kind === 'host'
    ? `the policy of ${hit.scope} blocks the host`
    : `the URL block pattern ${hit.pattern} of the policy of ${hit.scope} matches its path: agents drop such links before they are queued and such queued URLs at their lease (remove it with DELETE /v1/hosts/${hit.scope}/block-patterns)`;
}

/**
 * Why a URL was or was not fetched, from the strongest evidence down: a 2xx/3xx (incl. 304)
 * attempt (`duplicate` when its body repeated another URL's); the latest attempt's error code; a
 * blocked host or a URL block pattern; a dead letter; a crawl-quality rule; waiting in the
 * frontier — for the host's spent daily budget or its budget cut for duplicates (`budget`), for
 * the host's next turn (`not_yet_due`) or to be leased (`queued`); the trap rules (the agent
 * drops trap URLs before they reach the frontier).
 */
export function urlVerdict(f: UrlFacts): UrlVerdict {
  const ok = f.history.filter(answered);
  if (ok.length > 0) {
    const last = ok[0]!;
    const due =
      f.recrawlDueAt !== null
        ? `; next re-crawl due ${new Date(f.recrawlDueAt).toISOString()}`
        : '';
    // A rule added after the fetch keeps it from being fetched again.
    const stopped =
      f.blockRule?.kind === 'pattern' ? `; not fetched again: ${blockDetail(f.blockRule)}` : '';
    const fetched = `fetched ${ok.length} time(s); last HTTP ${last.status} at ${last.fetched_at}${due}${stopped}`;
    if (last.error_code === 'soft_404')
      return {
        fetched: true,
        reason: 'soft_404',
        detail: `${fetched}; the page answers like the host's answer for a path that does not exist (its soft-404 probe), so it was neither followed nor fed`,
      };
    if (last.duplicate_of !== '')
      return {
        fetched: true,
        reason: 'duplicate',
        detail: `${fetched}; its body repeated ${last.duplicate_of} exactly, so it was stored as a WARC revisit of that capture`,
      };
    return { fetched: true, reason: 'fetched', detail: fetched };
  }
  const latest = f.history[0];
  if (latest && latest.error_code !== '') {
    const reason = REASON_OF_CODE[latest.error_code];
    if (reason !== undefined)
      return {
        fetched: false,
        reason,
        detail: `the last attempt at ${latest.fetched_at} ended with ${latest.error_code}`,
      };
  }
  if (f.blocked || f.blockRule?.kind === 'host')
    return {
      fetched: false,
      reason: 'blocked',
      detail: `the host is blocked by an operator${f.blockRule?.kind === 'host' ? ` (${blockDetail(f.blockRule)})` : ''}; its queue is kept until it is unblocked`,
    };
  if (f.blockRule !== null)
    return {
      fetched: false,
      reason: 'blocked',
      detail: `blocked by an operator: ${blockDetail(f.blockRule)}`,
    };
  if (f.deadLetter) {
    const reason = REASON_OF_CODE[f.deadLetter.reason] ?? 'unknown';
    return {
      fetched: false,
      reason,
      detail: `parked as a dead letter after ${f.deadLetter.attempts} attempt(s): ${f.deadLetter.reason} (${new Date(f.deadLetter.at).toISOString()}); requeue it with POST /v1/dead-letters/requeue`,
    };
  }
  if (f.qualityRule !== null)
    return {
      fetched: false,
      reason: 'trap',
      detail: QUALITY_DETAIL[f.qualityRule],
    };
  if (latest && !f.seen) {
    return {
      fetched: false,
      reason: 'unknown',
      detail: `${f.history.length} attempt(s) without a 2xx/3xx answer; the last at ${latest.fetched_at}: HTTP ${latest.status}${latest.error_code ? ` (${latest.error_code})` : ''}`,
    };
  }
  if (f.seen) return waiting(f, latest);
  if (f.trapRule !== null)
    return {
      fetched: false,
      reason: 'trap',
      detail: `matches the trap rule ${f.trapRule}: agents drop such links before they reach the frontier`,
    };
  return {
    fetched: false,
    reason: 'unknown',
    detail:
      'no fetch recorded in ClickHouse, no block rule matches, the URL is not in the seen set or the dead letters, and no rule of its own keeps it out: it was never queued. Either no page linked it, or a link to it was dropped by a rule that depends on the page it was found on — too many hops or too deep from a seed (CRAWLER_MAX_HOPS, CRAWLER_MAX_DEPTH), or a page that only repeated its URL family (its links into that family are not followed) — and such drops leave no record of the URL (GET /v1/stats counts them by rule)',
  };
}

/** A URL in the frontier, not fetched (successfully) yet: what it waits for. */
function waiting(f: UrlFacts, latest: HistoryRow | undefined): UrlVerdict {
  const tried = latest
    ? `${f.history.length} attempt(s) without a 2xx/3xx answer, the last at ${latest.fetched_at}: HTTP ${latest.status}${latest.error_code ? ` (${latest.error_code})` : ''}; `
    : '';
  const queue = `the host's queue holds ${f.queuedOnHost} URL(s)`;
  if (f.budgetLeft !== null && f.budgetLeft <= 0)
    return {
      fetched: false,
      reason: 'budget',
      detail: `${tried}the host has used its daily page budget; it is fetched again from the next UTC day (${queue}; raise its budget or allowlist it with PUT /v1/hosts/{host})`,
    };
  if (f.duplicateBudgetLeft !== null && f.duplicateBudgetLeft <= 0)
    return {
      fetched: false,
      reason: 'budget',
      detail: `${tried}${QUALITY_DETAIL.duplicate_budget} (most of its bodies today repeated others exactly) and that cut is used up: agents end its leases until the next UTC day, when it is whole again (${queue})`,
    };
  if (f.hostNextAt > f.now)
    return {
      fetched: false,
      reason: 'not_yet_due',
      detail: `${tried}waiting for the host's next turn at ${new Date(f.hostNextAt).toISOString()} (politeness, or backoff after errors); ${queue}`,
    };
  return {
    fetched: false,
    reason: 'queued',
    detail: `${tried}in the frontier's seen set, not fetched yet; ${queue}`,
  };
}
