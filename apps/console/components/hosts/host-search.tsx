'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { query } from '../../lib/client/api';
import { useApi } from '../../lib/client/use-api';
import { formatCount } from '../../lib/format';
import type { HostListItem } from '../../lib/types/hosts';
import { EmptyState } from '../ui/empty-state';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Time } from '../ui/time';

/** Search hosts by substring; or open one by its exact name. */
export function HostSearch(): ReactNode {
  const router = useRouter();
  const [q, setQ] = useState('');
  const [debounced, setDebounced] = useState('');
  useEffect(() => {
    const id = setTimeout(() => setDebounced(q.trim()), 250);
    return () => clearTimeout(id);
  }, [q]);
  const list = useApi<{ items: HostListItem[]; next_cursor: string | null }>(
    `/hosts${query({ q: debounced, limit: 100 })}`,
  );
  const open = (e: FormEvent): void => {
    e.preventDefault();
    const name = q.trim().toLowerCase();
    if (name) router.push(`/hosts/${encodeURIComponent(name)}`);
  };

  return (
    <>
      <form className="form form--row panel" role="search" onSubmit={open}>
        <label className="field field--grow">
          <span>Host</span>
          <input
            name="host"
            type="search"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            placeholder="example.com"
            autoComplete="off"
          />
        </label>
        <button type="submit" className="button" disabled={!q.trim()}>
          Open host
        </button>
      </form>
      {list.loading && <Loading what="hosts" />}
      {list.error && <ErrorBox title="Cannot list hosts" error={list.error} />}
      {list.data && list.data.items.length === 0 && (
        <EmptyState title={debounced ? `No host matches “${debounced}”` : 'No hosts yet'}>
          Hosts appear once the crawl fetches from them. Add seeds on the{' '}
          <Link href="/seeds">Seeds</Link> page.
        </EmptyState>
      )}
      {list.data && list.data.items.length > 0 && (
        <table className="table">
          <caption className="visually-hidden">Hosts</caption>
          <thead>
            <tr>
              <th scope="col">Host</th>
              <th scope="col" className="num">
                Fetches
              </th>
              <th scope="col" className="num">
                Errors
              </th>
              <th scope="col">Last fetch</th>
              <th scope="col">Policy</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((h) => (
              <tr key={h.host}>
                <td>
                  <Link href={`/hosts/${encodeURIComponent(h.host)}`}>{h.host}</Link>
                </td>
                <td className="num">{formatCount(h.fetches)}</td>
                <td className="num">{formatCount(h.errors)}</td>
                <td>
                  <Time at={h.last_fetch_at} />
                </td>
                <td>
                  {h.blocked ? <span className="badge badge--danger">blocked</span> : null}{' '}
                  {h.rate_limit_rps !== null ? (
                    `${h.rate_limit_rps} req/s`
                  ) : (
                    <span className="muted">default</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.data?.next_cursor && (
        <p className="muted">
          Showing the first {list.data.items.length} hosts; type part of a name to narrow the list.
        </p>
      )}
    </>
  );
}
