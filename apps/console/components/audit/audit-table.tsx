import type { ReactNode } from 'react';
import type { AuditItem } from '../../lib/types/admin';
import { Time } from '../ui/time';

function compact(v: unknown): string {
  if (v === null || v === undefined) return '—';
  const s = JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

export function AuditTable(props: {
  items: AuditItem[];
  empty: string;
  showTarget?: boolean;
}): ReactNode {
  if (props.items.length === 0) return <p className="muted">{props.empty}</p>;
  return (
    <table className="table">
      <caption className="visually-hidden">Audit entries, newest first</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Who</th>
          <th scope="col">Action</th>
          {props.showTarget && <th scope="col">Target</th>}
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {props.items.map((a) => (
          <tr key={a.id}>
            <td>
              <Time at={a.at} />
            </td>
            <td>{a.actor.label || '—'}</td>
            <td>
              <code>{a.action}</code>
            </td>
            {props.showTarget && <td className="break">{a.target ?? '—'}</td>}
            <td className="mono break">{compact(a.before)}</td>
            <td className="mono break">{compact(a.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
