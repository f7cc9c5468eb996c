import Link from 'next/link';
import type { ReactNode } from 'react';
import type { UrlFetch } from '../../lib/api/router-types';
import { formatBytes } from '../../lib/format';
import { DataTable } from '../ui/data-table';
import { Time } from '../ui/time';

/** What the fetch brought: new, changed, unchanged, and the URL it repeated exactly. */
function Content({ fetch: h }: { fetch: UrlFetch }): ReactNode {
  return (
    <>
      {h.change || '—'}
      {h.duplicate_of && (
        <>
          {' '}
          <span className="muted">
            (same body as{' '}
            <Link href={`/urls?url=${encodeURIComponent(h.duplicate_of)}`}>{h.duplicate_of}</Link>)
          </span>
        </>
      )}
    </>
  );
}

/** Every fetch of the URL; rows with a WARC record can be opened. */
export function HistoryTable(props: {
  rows: UrlFetch[];
  open: UrlFetch | null;
  onOpen: (row: UrlFetch | null) => void;
}): ReactNode {
  if (props.rows.length === 0) return <p className="muted">Never fetched.</p>;
  const isOpen = (h: UrlFetch) => props.open?.fetched_at === h.fetched_at;
  return (
    <DataTable
      caption="Fetch history, newest first"
      rows={props.rows}
      rowKey={(h) => h.fetched_at}
      rowAttributes={(h) => (isOpen(h) ? { className: 'row--selected' } : {})}
      columns={[
        { header: 'When', cell: (h) => <Time at={h.fetched_at} /> },
        {
          header: 'Status',
          cell: (h) => (
            <>
              {h.status || '—'}{' '}
              {h.error_code && <span className="badge badge--danger">{h.error_code}</span>}
            </>
          ),
        },
        { header: 'Time', num: true, cell: (h) => `${h.fetch_ms} ms` },
        { header: 'Size', num: true, cell: (h) => formatBytes(h.bytes) },
        { header: 'Content', cell: (h) => <Content fetch={h} /> },
        {
          header: 'Capture',
          cell: (h) =>
            h.warc_key ? (
              <button
                type="button"
                className="button button--small"
                aria-expanded={isOpen(h)}
                onClick={() => props.onOpen(isOpen(h) ? null : h)}
              >
                {isOpen(h)
                  ? 'Hide raw response'
                  : `View raw response${h.record_type === 'revisit' ? ' (revisit)' : ''}`}
              </button>
            ) : (
              <span className="muted">none</span>
            ),
        },
      ]}
    />
  );
}
