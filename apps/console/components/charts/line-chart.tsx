import type { ReactNode } from 'react';
import { ChartLegend } from './chart-legend';

export interface Series {
  name: string;
  /** A CSS colour, e.g. `var(--accent)`. */
  color: string;
  /** [time in epoch ms, value] pairs, oldest first. */
  points: Array<[number, number]>;
}

const W = 560;
const H = 160;
const PAD = { left: 48, right: 8, top: 8, bottom: 22 };

function timeLabel(t: number): string {
  return new Date(t).toLocaleTimeString('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  });
}

/**
 * A plain SVG line chart. The figure is labelled with a text summary (last value of each
 * series) so screen readers get the numbers the picture shows.
 */
export function LineChart(props: {
  label: string;
  series: Series[];
  format: (v: number) => string;
}): ReactNode {
  const all = props.series.flatMap((s) => s.points);
  if (all.length === 0)
    return (
      <div className="chart chart--empty" role="img" aria-label={`${props.label}: no data yet`}>
        No data in this window yet
      </div>
    );
  const xs = all.map((p) => p[0]);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs, x0 + 1);
  const yMax = Math.max(...all.map((p) => p[1]), 0) || 1;
  const sx = (t: number) => PAD.left + ((t - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (v: number) => H - PAD.bottom - (v / yMax) * (H - PAD.top - PAD.bottom);
  const summary = props.series
    .map((s) => `${s.name} ${props.format(s.points[s.points.length - 1]?.[1] ?? 0)}`)
    .join(', ');
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.label}, latest: ${summary}`}>
        <line className="chart__axis" x1={PAD.left} x2={W - PAD.right} y1={sy(0)} y2={sy(0)} />
        <line
          className="chart__grid"
          x1={PAD.left}
          x2={W - PAD.right}
          y1={sy(yMax)}
          y2={sy(yMax)}
        />
        <text className="chart__tick" x={PAD.left - 6} y={sy(yMax) + 4} textAnchor="end">
          {props.format(yMax)}
        </text>
        <text className="chart__tick" x={PAD.left - 6} y={sy(0) + 4} textAnchor="end">
          0
        </text>
        <text className="chart__tick" x={PAD.left} y={H - 4}>
          {timeLabel(x0)}
        </text>
        <text className="chart__tick" x={W - PAD.right} y={H - 4} textAnchor="end">
          {timeLabel(x1)}
        </text>
        {props.series.map((s) =>
          s.points.length === 1 ? (
            <circle
              key={s.name}
              cx={sx(s.points[0]![0])}
              cy={sy(s.points[0]![1])}
              r={3}
              fill={s.color}
            />
          ) : (
            <polyline
              key={s.name}
              fill="none"
              stroke={s.color}
              strokeWidth={2}
              strokeLinejoin="round"
              points={s.points.map(([t, v]) => `${sx(t).toFixed(1)},${sy(v).toFixed(1)}`).join(' ')}
            />
          ),
        )}
      </svg>
      <ChartLegend
        items={props.series.map((s) => ({
          key: s.name,
          name: s.name,
          color: s.color,
          value: props.format(s.points[s.points.length - 1]?.[1] ?? 0),
        }))}
      />
    </figure>
  );
}
