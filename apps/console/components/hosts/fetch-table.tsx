import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatBytes } from '../../lib/format';
import type { FetchSummary } from '../../lib/types/hosts';
import { Time } from '../ui/time';

/** Fetches of a host, each linking to the URL inspector. */
export function FetchTable(props: {
  caption: string;
  rows: FetchSummary[];
  empty: string;
}): ReactNode {
  if (props.rows.length === 0) return <p className="muted">{props.empty}</p>;
  return (
    <table className="table">
      <caption className="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">URL</th>
          <th scope="col">When</th>
          <th scope="col">Status</th>
          <th scope="col" className="num">
            Time
          </th>
          <th scope="col" className="num">
            Size
          </th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((f) => (
          <tr key={`${f.url}@${f.fetched_at}`}>
            <td className="break">
              <Link href={`/urls?url=${encodeURIComponent(f.url)}`}>{f.url}</Link>
            </td>
            <td>
              <Time at={f.fetched_at} />
            </td>
            <td>
              {f.status || '—'}{' '}
              {f.error_code ? <span className="badge badge--danger">{f.error_code}</span> : null}
            </td>
            <td className="num">{f.fetch_ms !== undefined ? `${f.fetch_ms} ms` : '—'}</td>
            <td className="num">{f.bytes !== undefined ? formatBytes(f.bytes) : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
