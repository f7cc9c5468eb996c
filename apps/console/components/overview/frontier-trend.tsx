import type { ReactNode } from 'react';
import { formatCount } from '../../lib/format';
import { LineChart } from '../charts/line-chart';
import { Panel } from '../ui/panel';

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
  const pts = (f: (s: FrontierSample) => number): Array<[number, number]> =>
    samples.map((s) => [s.t, f(s)]);
  return (
    <div className="chart-grid">
      <Panel title="Frontier size" aside="since this page opened">
        <LineChart
          label="Queued URLs"
          format={formatCount}
          series={[{ name: 'queued URLs', color: 'var(--accent)', points: pts((s) => s.queued) }]}
        />
      </Panel>
      <Panel title="Ready hosts, leases, agents" aside="since this page opened">
        <LineChart
          label="Ready hosts, open leases and agents alive"
          format={formatCount}
          series={[
            { name: 'ready hosts', color: 'var(--mix-2xx)', points: pts((s) => s.ready) },
            { name: 'open leases', color: 'var(--mix-4xx)', points: pts((s) => s.leases) },
            { name: 'agents', color: 'var(--mix-error)', points: pts((s) => s.agents) },
          ]}
        />
      </Panel>
    </div>
  );
}
