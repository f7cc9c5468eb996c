import type { ReactNode } from 'react';
import { formatCount } from '../../lib/format';
import { TrendPanel } from '../charts/trend-panel';

export interface FrontierSample {
  t: number;
  queued: number;
  ready: number;
  leases: number;
  agents: number;
}

/**
 * Frontier size, ready hosts, open leases and agents since this page opened: the coordinator
 * reports these as current values, so the trend is built from the live samples.
 */
export function FrontierTrend({ samples }: { samples: FrontierSample[] }): ReactNode {
  return (
    <div className="chart-grid">
      <TrendPanel
        title="Frontier size"
        aside="since this page opened"
        label="Queued URLs"
        format={formatCount}
        rows={samples}
        lines={[{ name: 'queued URLs', color: 'var(--accent)', value: (s) => s.queued }]}
      />
      <TrendPanel
        title="Ready hosts, leases, agents"
        aside="since this page opened"
        label="Ready hosts, open leases and agents alive"
        format={formatCount}
        rows={samples}
        lines={[
          { name: 'ready hosts', color: 'var(--mix-2xx)', value: (s) => s.ready },
          { name: 'open leases', color: 'var(--mix-4xx)', value: (s) => s.leases },
          { name: 'agents', color: 'var(--mix-error)', value: (s) => s.agents },
        ]}
      />
    </div>
  );
}
