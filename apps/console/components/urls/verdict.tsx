import type { ReactNode } from 'react';
import type { RouterOutputs } from '../../lib/api/router-types';

type UrlReport = RouterOutputs['urls']['inspect'];
type VerdictReason = UrlReport['verdict']['reason'];
import { Time } from '../ui/time';

const EXPLAIN: Record<VerdictReason, string> = {
  fetched: 'Fetched.',
  robots: 'Not fetched: the host’s robots.txt disallows it.',
  blocked: 'Not fetched: an operator blocked the host.',
  trap: 'Not fetched: a trap or crawl-quality rule keeps it out (calendar, pager, facets, session id, a URL family that repeats itself…).',
  soft_404:
    'Fetched, but it answers like the host’s missing pages (a soft 404): not followed, not fed.',
  budget: 'Not fetched: the host used up its daily page budget.',
  duplicate: 'Fetched, but its body repeats another URL’s exactly: kept as a revisit of it.',
  not_yet_due: 'Waiting in its host’s queue for the host’s next turn (politeness or backoff).',
  queued: 'Waiting in its host’s queue.',
  unknown: 'Not known to the crawl: no link or seed led to it yet.',
};

function days(ms: number): string {
  const h = ms / 3_600_000;
  return h < 48 ? `${h.toFixed(1)} h` : `${(h / 24).toFixed(1)} d`;
}

/** The answer to "why was this URL (not) fetched?". */
export function Verdict({ report }: { report: UrlReport }): ReactNode {
  const v = report.verdict;
  return (
    <div
      className={`verdict verdict--${v.fetched ? 'ok' : 'no'}`}
      role="status"
      data-testid="verdict"
    >
      <p className="verdict__reason">
        <strong>{EXPLAIN[v.reason]}</strong>
      </p>
      {v.detail && <p>{v.detail}</p>}
      {report.recrawl && (
        <p className="muted">
          Re-crawl every {days(report.recrawl.interval_ms)}; next due{' '}
          <Time at={report.recrawl.due_at} />.
        </p>
      )}
    </div>
  );
}
