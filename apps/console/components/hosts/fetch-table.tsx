import Link from 'next/link';
import type { ReactNode } from 'react';
import type { HostFetch } from '../../lib/api/router-types';
import { formatBytes } from '../../lib/format';
import { DataTable } from '../ui/data-table';
import { Time } from '../ui/time';

/** Fetches of a host, each linking to the URL inspector. */
export function FetchTable(props: {
  caption: string;
  rows: HostFetch[];
  empty: string;
}): ReactNode {
  if (props.rows.length === 0) return <p className="muted">{props.empty}</p>;
  return (
    <DataTable
      caption={props.caption}
      rows={props.rows}
      rowKey={(f) => `${f.url}@${f.fetched_at}`}
      columns={[
        {
          header: 'URL',
          className: 'break',
          cell: (f) => <Link href={`/urls?url=${encodeURIComponent(f.url)}`}>{f.url}</Link>,
        },
        { header: 'When', cell: (f) => <Time at={f.fetched_at} /> },
        {
          header: 'Status',
          cell: (f) => (
            <>
              {f.status || '—'}{' '}
              {f.error_code ? <span className="badge badge--danger">{f.error_code}</span> : null}
            </>
          ),
        },
        {
          header: 'Time',
          num: true,
          cell: (f) => (f.fetch_ms !== undefined ? `${f.fetch_ms} ms` : '—'),
        },
        {
          header: 'Size',
          num: true,
          cell: (f) => (f.bytes !== undefined ? formatBytes(f.bytes) : '—'),
        },
      ]}
    />
  );
}
