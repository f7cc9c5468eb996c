'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import { HOST_SEARCH } from '../../lib/api/page-inputs';
import type { RouterOutputs } from '../../lib/api/router-types';
import { api } from '../../lib/client/trpc';
import { useQuery } from '../../lib/client/use-query';
import { formatCount } from '../../lib/format';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { QueryList } from '../ui/query-list';
import { SearchForm } from '../ui/search-form';
import { Time } from '../ui/time';

/** Search hosts by substring; or open one by its exact name. */
export function HostSearch(props: {
  initial?: Settled<RouterOutputs['hosts']['list']>;
}): ReactNode {
  const router = useRouter();
  const [q, setQ] = useState('');
  const [debounced, setDebounced] = useState('');
  useEffect(() => {
    const id = setTimeout(() => setDebounced(q.trim()), 250);
    return () => clearTimeout(id);
  }, [q]);
  const list = useQuery(
    api.hosts.list,
    { ...HOST_SEARCH, q: debounced },
    { initial: props.initial },
  );
  const open = (): void => {
    const name = q.trim().toLowerCase();
    if (name) router.push(`/hosts/${encodeURIComponent(name)}`);
  };

  return (
    <>
      <SearchForm
        label="Host"
        input={{ name: 'host', type: 'search', placeholder: 'example.com', autoComplete: 'off' }}
        value={q}
        onChange={setQ}
        onSubmit={open}
        submit={{ label: 'Open host', disabled: !q.trim() }}
      />
      <QueryList
        query={list}
        what="hosts"
        empty={
          <EmptyState title={debounced ? `No host matches “${debounced}”` : 'No hosts yet'}>
            Hosts appear once the crawl fetches from them. Add seeds on the{' '}
            <Link href="/seeds">Seeds</Link> page.
          </EmptyState>
        }
      >
        {(items) => (
          <DataTable
            caption="Hosts"
            rows={items}
            rowKey={(h) => h.host}
            columns={[
              {
                header: 'Host',
                cell: (h) => <Link href={`/hosts/${encodeURIComponent(h.host)}`}>{h.host}</Link>,
              },
              { header: 'Fetches', num: true, cell: (h) => formatCount(h.fetches) },
              { header: 'Errors', num: true, cell: (h) => formatCount(h.errors) },
              { header: 'Last fetch', cell: (h) => <Time at={h.last_fetch_at} /> },
              {
                header: 'Policy',
                cell: (h) => (
                  <>
                    {h.blocked ? <span className="badge badge--danger">blocked</span> : null}{' '}
                    {h.rate_limit_rps !== null ? (
                      `${h.rate_limit_rps} req/s`
                    ) : (
                      <span className="muted">default</span>
                    )}
                  </>
                ),
              },
            ]}
          />
        )}
      </QueryList>
      {list.data?.next_cursor && (
        <p className="muted">
          Showing the first {list.data.items.length} hosts; type part of a name to narrow the list.
        </p>
      )}
    </>
  );
}
