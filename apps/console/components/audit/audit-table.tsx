import type { ReactNode } from 'react';
import { DataTable } from '../ui/data-table';
import { Time } from '../ui/time';

/** An audit entry as the tables show it (from `audit.list`, or a host's own entries). */
export interface AuditRow {
  id: string;
  at: string;
  actor: string | null;
  action: string;
  target?: string | null;
  before?: unknown;
  after?: unknown;
}

function compact(v: unknown): string {
  if (v === null || v === undefined) return '—';
  const s = JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

/** Audit entries, newest first: when, who, what, and the values before and after. */
export function AuditTable(props: {
  items: AuditRow[];
  empty: string;
  showTarget?: boolean;
}): ReactNode {
  if (props.items.length === 0) return <p className="muted">{props.empty}</p>;
  return (
    <DataTable
      caption="Audit entries, newest first"
      rows={props.items}
      rowKey={(a) => a.id}
      columns={[
        { header: 'When', cell: (a) => <Time at={a.at} /> },
        { header: 'Who', cell: (a) => a.actor || '—' },
        { header: 'Action', cell: (a) => <code>{a.action}</code> },
        props.showTarget === true && {
          header: 'Target',
          className: 'break',
          cell: (a) => a.target ?? '—',
        },
        { header: 'Before', className: 'mono break', cell: (a) => compact(a.before) },
        { header: 'After', className: 'mono break', cell: (a) => compact(a.after) },
      ]}
    />
  );
}
