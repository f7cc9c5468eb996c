import type { ReactNode } from 'react';

/** A chart's legend: each series' colour, name and figure (its last value, or its total). */
export function ChartLegend(props: {
  items: Array<{ key: string; name: string; color: string; value: string }>;
}): ReactNode {
  return (
    <figcaption className="chart__legend">
      {props.items.map((i) => (
        <span key={i.key}>
          <span className="swatch" style={{ background: i.color }} aria-hidden="true" /> {i.name}{' '}
          <strong>{i.value}</strong>
        </span>
      ))}
    </figcaption>
  );
}
