import type { ReactNode } from 'react';

export function Tile(props: {
  label: string;
  value: string;
  detail?: ReactNode;
  tone?: 'default' | 'accent' | 'danger';
}): ReactNode {
  return (
    <div className={`tile tile--${props.tone ?? 'default'}`}>
      <dt className="tile__label">{props.label}</dt>
      <dd className="tile__value">{props.value}</dd>
      {props.detail !== undefined && <dd className="tile__detail">{props.detail}</dd>}
    </div>
  );
}
