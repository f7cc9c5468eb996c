import type { ReactNode } from 'react';
import type { HostDetail } from '../../lib/api/router-types';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';
import { RobotsSummaryView } from './robots-summary';

/** The host's robots.txt as fetched, and what it means for us. */
export function RobotsView({ robots }: { robots: HostDetail['robots'] }): ReactNode {
  return (
    <Panel title="robots.txt as fetched">
      {robots === null ? (
        <p className="muted">Not fetched yet: it is fetched before the host’s first page.</p>
      ) : (
        <>
          <p>
            {robots.url ? <span className="mono break">{robots.url}</span> : 'robots.txt'}: status{' '}
            <strong>{robots.status || 'no answer'}</strong>
            {robots.error ? ` (${robots.error})` : ''}, fetched <Time at={robots.fetched_at} />
          </p>
          <RobotsSummaryView summary={robots.rules_summary} />
          <pre className="code-block" tabIndex={0} aria-label="robots.txt body">
            {robots.body || '(empty body)'}
          </pre>
        </>
      )}
    </Panel>
  );
}
