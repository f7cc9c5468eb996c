import type { ReactNode } from 'react';
import { formatBytes, formatPercent, formatRate } from '../../lib/format';
import type { StatsSeries } from '../../lib/api/router-types';
import { BarList } from '../charts/bar-list';
import { StackedBars } from '../charts/stacked-bars';
import { TrendPanel } from '../charts/trend-panel';
import { Panel } from '../ui/panel';

const ms = (v: number) => `${Math.round(v)} ms`;
const pct = (v: number) => formatPercent(v, 1);

/**
 * Crawl-health charts over the chosen window, from `stats.series`. The status mix stacks
 * `no_answer`, not `errors` (no answer *or* 5xx: beside the 5xx series it counts each twice).
 */
export function SeriesCharts({ series }: { series: StatsSeries }): ReactNode {
  const b = series.buckets;
  const per = Math.max(1, series.bucket_s);
  return (
    <div className="chart-grid">
      <TrendPanel
        title="Pages / s"
        aside={`${per} s buckets`}
        label="Pages per second"
        format={formatRate}
        rows={b}
        lines={[{ name: 'pages/s', color: 'var(--accent)', value: (x) => x.pages / per }]}
      />
      <TrendPanel
        title="Bytes / s"
        label="Bytes per second"
        format={(v) => `${formatBytes(v)}/s`}
        rows={b}
        lines={[{ name: 'bytes/s', color: 'var(--mix-3xx)', value: (x) => x.bytes / per }]}
      />
      <Panel title="Status mix">
        <StackedBars
          label="Responses by status class"
          keys={[
            { key: 's2xx', name: '2xx', color: 'var(--mix-2xx)' },
            { key: 's3xx', name: '3xx', color: 'var(--mix-3xx)' },
            { key: 's4xx', name: '4xx', color: 'var(--mix-4xx)' },
            { key: 's5xx', name: '5xx', color: 'var(--mix-5xx)' },
            { key: 'none', name: 'no answer', color: 'var(--mix-error)' },
          ]}
          rows={b.map((x) => ({
            t: x.t,
            values: { s2xx: x.s2xx, s3xx: x.s3xx, s4xx: x.s4xx, s5xx: x.s5xx, none: x.no_answer },
          }))}
        />
      </Panel>
      <TrendPanel
        title="Fetch latency"
        label="Fetch latency percentiles"
        format={ms}
        rows={b}
        lines={[
          { name: 'p50', color: 'var(--mix-2xx)', value: (x) => x.p50_ms },
          { name: 'p95', color: 'var(--mix-4xx)', value: (x) => x.p95_ms },
          { name: 'p99', color: 'var(--mix-5xx)', value: (x) => x.p99_ms },
        ]}
      />
      <TrendPanel
        title="Duplicates"
        label="Duplicate and near-duplicate rates"
        format={pct}
        rows={b}
        lines={[
          {
            name: 'exact',
            color: 'var(--mix-error)',
            value: (x) => (x.pages ? x.duplicates / x.pages : 0),
          },
          {
            name: 'near',
            color: 'var(--mix-4xx)',
            value: (x) => (x.pages ? x.near_duplicates / x.pages : 0),
          },
        ]}
      />
      <Panel title="Error codes" aside="in this window">
        <BarList
          label="Error codes by count"
          items={series.error_codes.map((e) => ({ name: e.code, value: e.count }))}
          empty="No fetch errors in this window."
        />
      </Panel>
    </div>
  );
}
