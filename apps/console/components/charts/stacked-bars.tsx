import type { ReactNode } from 'react';
import { ChartLegend } from './chart-legend';

export interface StackKey {
  key: string;
  name: string;
  color: string;
}

const W = 560;
const H = 160;
const PAD = { left: 8, right: 8, top: 8, bottom: 8 };

/** Stacked columns, one per time bucket (e.g. the status mix over the window). */
export function StackedBars(props: {
  label: string;
  keys: StackKey[];
  rows: Array<{ t: number; values: Record<string, number> }>;
}): ReactNode {
  const totals = props.rows.map((r) => props.keys.reduce((s, k) => s + (r.values[k.key] ?? 0), 0));
  const max = Math.max(0, ...totals);
  if (props.rows.length === 0 || max === 0)
    return (
      <div className="chart chart--empty" role="img" aria-label={`${props.label}: no data yet`}>
        No responses in this window yet
      </div>
    );
  const bw = (W - PAD.left - PAD.right) / props.rows.length;
  const scale = (H - PAD.top - PAD.bottom) / max;
  const sums = props.keys.map((k) => ({
    ...k,
    total: props.rows.reduce((s, r) => s + (r.values[k.key] ?? 0), 0),
  }));
  const summary = sums.map((k) => `${k.name} ${k.total}`).join(', ');
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.label}: ${summary}`}>
        {props.rows.map((r, i) => {
          let y = H - PAD.bottom;
          return (
            <g key={r.t}>
              {props.keys.map((k) => {
                const h = (r.values[k.key] ?? 0) * scale;
                y -= h;
                return h > 0 ? (
                  <rect
                    key={k.key}
                    x={PAD.left + i * bw + 0.5}
                    y={y}
                    width={Math.max(1, bw - 1)}
                    height={h}
                    fill={k.color}
                  />
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      <ChartLegend items={sums.map((k) => ({ ...k, value: k.total.toLocaleString('en-US') }))} />
    </figure>
  );
}
