'use client';

import Link from 'next/link';
import { useState, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import { DEAD_LETTERS } from '../../lib/api/page-inputs';
import type { RouterOutputs } from '../../lib/api/router-types';
import { useCan } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { useAction } from '../../lib/client/use-action';
import { useQuery } from '../../lib/client/use-query';
import { ActionStatus } from '../ui/action-status';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { QueryList } from '../ui/query-list';
import { Time } from '../ui/time';

/** URLs that kept failing, with re-queue (all, or one host's) for operators. */
export function DeadLetters(props: {
  initial?: Settled<RouterOutputs['deadLetters']['list']>;
}): ReactNode {
  const canEdit = useCan('operator');
  const [hostInput, setHostInput] = useState('');
  const [host, setHost] = useState('');
  const list = useQuery(api.deadLetters.list, host ? { ...DEAD_LETTERS, host } : DEAD_LETTERS, {
    pollMs: 10_000,
    initial: props.initial,
  });
  const action = useAction('Nothing was re-queued');

  const requeue = async (host?: string): Promise<void> => {
    const r = await action.run(() => api.deadLetters.requeue.mutate(host ? { host } : {}), {
      done: (r) =>
        `${r.requeued} URL${r.requeued === 1 ? '' : 's'} put back in ${host ? `${host}’s queue` : 'their hosts’ queues'}.`,
    });
    if (r.ok) list.refresh();
  };

  const items = list.data?.items ?? [];
  return (
    <>
      <form
        className="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setHost(hostInput.trim());
        }}
      >
        <label className="field">
          <span>Host (empty = all)</span>
          <input
            name="host"
            value={hostInput}
            placeholder="example.com"
            onChange={(e) => setHostInput(e.target.value)}
          />
        </label>
        <button type="submit" className="button">
          Filter
        </button>
        <span>
          {list.data
            ? host
              ? `${items.length} of ${host}’s dead letters shown`
              : `${list.data.total} dead letters`
            : ' '}
        </span>
        <span className="toolbar__spacer" />
        {canEdit && (
          <button
            type="button"
            className="button"
            disabled={action.busy || items.length === 0}
            onClick={() => void requeue(host || undefined)}
          >
            {host ? `Re-queue ${host}’s` : 'Re-queue all'}
          </button>
        )}
      </form>
      <ActionStatus action={action} />
      <QueryList
        query={list}
        what="dead letters"
        empty={
          <EmptyState title="No dead letters">
            URLs land here after failing several times in a row; none have.
          </EmptyState>
        }
      >
        {(rows) => (
          <DataTable
            caption="Dead letters"
            rows={rows}
            rowKey={(d) => d.url}
            columns={[
              {
                header: 'URL',
                className: 'break',
                cell: (d) => <Link href={`/urls?url=${encodeURIComponent(d.url)}`}>{d.url}</Link>,
              },
              { header: 'Why', cell: (d) => <code>{d.reason}</code> },
              { header: 'Attempts', num: true, cell: (d) => d.attempts },
              { header: 'Parked', cell: (d) => <Time at={d.parked_at} /> },
              canEdit && {
                header: 'Action',
                cell: (d) => (
                  <button
                    type="button"
                    className="button button--small"
                    disabled={action.busy}
                    onClick={() => void requeue(d.host)}
                  >
                    Re-queue {d.host}
                  </button>
                ),
              },
            ]}
          />
        )}
      </QueryList>
    </>
  );
}
