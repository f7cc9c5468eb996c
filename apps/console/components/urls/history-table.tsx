import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatBytes } from '../../lib/format';
import type { UrlFetch } from '../../lib/types/urls';
import { Time } from '../ui/time';

/** Every fetch of the URL; rows with a WARC record can be opened. */
export function HistoryTable(props: {
  rows: UrlFetch[];
  open: UrlFetch | null;
  onOpen: (row: UrlFetch | null) => void;
}): ReactNode {
  if (props.rows.length === 0) return <p className="muted">Never fetched.</p>;
  return (
    <table className="table">
      <caption className="visually-hidden">Fetch history, newest first</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Status</th>
          <th scope="col" className="num">
            Time
          </th>
          <th scope="col" className="num">
            Size
          </th>
          <th scope="col">Content</th>
          <th scope="col">Capture</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((h) => {
          const isOpen = props.open?.fetched_at === h.fetched_at;
          return (
            <tr key={h.fetched_at} className={isOpen ? 'row--selected' : undefined}>
              <td>
                <Time at={h.fetched_at} />
              </td>
              <td>
                {h.status || '—'}{' '}
                {h.error_code && <span className="badge badge--danger">{h.error_code}</span>}
              </td>
              <td className="num">{h.fetch_ms} ms</td>
              <td className="num">{formatBytes(h.bytes)}</td>
              <td>
                {h.change || '—'}
                {h.duplicate_of && (
                  <>
                    {' '}
                    <span className="muted">
                      (same body as{' '}
                      <Link href={`/urls?url=${encodeURIComponent(h.duplicate_of)}`}>
                        {h.duplicate_of}
                      </Link>
                      )
                    </span>
                  </>
                )}
              </td>
              <td>
                {h.warc_key ? (
                  <button
                    type="button"
                    className="button button--small"
                    aria-expanded={isOpen}
                    onClick={() => props.onOpen(isOpen ? null : h)}
                  >
                    {isOpen
                      ? 'Hide raw response'
                      : `View raw response${h.record_type === 'revisit' ? ' (revisit)' : ''}`}
                  </button>
                ) : (
                  <span className="muted">none</span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
