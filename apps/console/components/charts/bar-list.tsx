import type { ReactNode } from 'react';

/** A ranked list with proportional bars (e.g. error codes by count). */
export function BarList(props: {
  label: string;
  items: Array<{ name: string; value: number }>;
  empty: string;
}): ReactNode {
  if (props.items.length === 0) return <p className="muted">{props.empty}</p>;
  const max = Math.max(...props.items.map((i) => i.value), 1);
  return (
    <ul className="bar-list" aria-label={props.label}>
      {props.items.map((i) => (
        <li key={i.name}>
          <span className="bar-list__name">{i.name}</span>
          <span className="bar-list__bar" aria-hidden="true">
            <span style={{ width: `${(i.value / max) * 100}%` }} />
          </span>
          <span className="bar-list__value">{i.value.toLocaleString('en-US')}</span>
        </li>
      ))}
    </ul>
  );
}
