import type { ReactNode } from 'react';
import type { HostDetail } from '../../lib/api/router-types';

type RobotsSummary = NonNullable<HostDetail['robots']>['rules_summary'];

const VERDICT: Record<RobotsSummary['verdict'], string> = {
  rules: 'Rules apply',
  allow_all: 'Everything allowed (robots.txt answered 4xx)',
  disallow_all: 'Nothing fetched (robots.txt answered 5xx or was unreachable)',
};

/** What the fetched robots.txt means for us. */
export function RobotsSummaryView({ summary }: { summary: RobotsSummary }): ReactNode {
  return (
    <dl className="facts">
      <dt>Verdict</dt>
      <dd>{VERDICT[summary.verdict]}</dd>
      <dt>Home page</dt>
      <dd>{summary.root_allowed ? 'allowed for us' : 'disallowed for us'}</dd>
      <dt>Crawl-delay</dt>
      <dd>{summary.crawl_delay_s === null ? 'none' : `${summary.crawl_delay_s} s`}</dd>
      <dt>Lines</dt>
      <dd>
        {summary.allow_lines} Allow, {summary.disallow_lines} Disallow
      </dd>
      <dt>Sitemaps</dt>
      <dd className="break">
        {summary.sitemaps.length === 0 ? 'none' : summary.sitemaps.join(', ')}
      </dd>
    </dl>
  );
}
