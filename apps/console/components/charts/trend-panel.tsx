import type { ReactNode } from 'react';
import { Panel } from '../ui/panel';
import { LineChart } from './line-chart';

/** One line of a {@link TrendPanel}: its name, colour (CSS, e.g. `var(--accent)`) and values. */
export interface TrendLine<Row> {
  name: string;
  color: string;
  value: (row: Row) => number;
}

/**
 * A titled panel holding one line chart of `rows` over time (oldest first, each at `t`, epoch
 * ms): a line per entry of `lines`.
 */
export function TrendPanel<Row extends { t: number }>(props: {
  title: string;
  aside?: ReactNode;
  /** What the chart shows, for screen readers. */
  label: string;
  format: (v: number) => string;
  rows: readonly Row[];
  lines: Array<TrendLine<Row>>;
}): ReactNode {
  const series = props.lines.map((l) => ({
    name: l.name,
    color: l.color,
    points: props.rows.map((r): [number, number] => [r.t, l.value(r)]),
  }));
  return (
    <Panel title={props.title} aside={props.aside}>
      <LineChart label={props.label} format={props.format} series={series} />
    </Panel>
  );
}
