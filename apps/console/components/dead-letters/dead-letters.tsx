'use client';

import Link from 'next/link';
import { useState, type ReactNode } from 'react';
import { apiSend, type ApiFailure } from '../../lib/client/api';
import { useCan } from '../../lib/client/session-context';
import { useApi } from '../../lib/client/use-api';
import { EmptyState } from '../ui/empty-state';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Time } from '../ui/time';

interface DeadLetter {
  url: string;
  host: string;
  reason: string;
  attempts: number;
  parked_at: string;
}

/** URLs that kept failing, with re-queue (all, or one host's) for operators. */
export function DeadLetters(): ReactNode {
  const canEdit = useCan('operator');
  const [hostInput, setHostInput] = useState('');
  const [host, setHost] = useState('');
  const list = useApi<{ items: DeadLetter[]; total?: number }>(
    `/dead-letters?limit=200${host ? `&host=${encodeURIComponent(host)}` : ''}`,
    10_000,
  );
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);

  const requeue = async (host?: string): Promise<void> => {
    setBusy(true);
    setError(null);
    setNote(null);
    const r = await apiSend<{ requeued: number }>(
      'POST',
      '/dead-letters/requeue',
      host ? { host } : {},
    );
    setBusy(false);
    if (!r.ok) return setError(r);
    setNote(
      `${r.data.requeued} URL${r.data.requeued === 1 ? '' : 's'} put back in ${host ? `${host}’s queue` : 'their hosts’ queues'}.`,
    );
    list.refresh();
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
              : `${list.data.total ?? items.length} dead letters`
            : ' '}
        </span>
        <span className="toolbar__spacer" />
        {canEdit && (
          <button
            type="button"
            className="button"
            disabled={busy || items.length === 0}
            onClick={() => void requeue(host || undefined)}
          >
            {host ? `Re-queue ${host}’s` : 'Re-queue all'}
          </button>
        )}
      </form>
      {note && (
        <p className="notice notice--ok" role="status">
          {note}
        </p>
      )}
      {error && <ErrorBox title="Nothing was re-queued" error={error} />}
      {list.loading && <Loading what="dead letters" />}
      {list.error && <ErrorBox title="Cannot list dead letters" error={list.error} />}
      {list.data && items.length === 0 && (
        <EmptyState title="No dead letters">
          URLs land here after failing several times in a row; none have.
        </EmptyState>
      )}
      {items.length > 0 && (
        <table className="table">
          <caption className="visually-hidden">Dead letters</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Why</th>
              <th scope="col" className="num">
                Attempts
              </th>
              <th scope="col">Parked</th>
              {canEdit && <th scope="col">Action</th>}
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.url}>
                <td className="break">
                  <Link href={`/urls?url=${encodeURIComponent(d.url)}`}>{d.url}</Link>
                </td>
                <td>
                  <code>{d.reason}</code>
                </td>
                <td className="num">{d.attempts}</td>
                <td>
                  <Time at={d.parked_at} />
                </td>
                {canEdit && (
                  <td>
                    <button
                      type="button"
                      className="button button--small"
                      disabled={busy}
                      onClick={() => void requeue(d.host)}
                    >
                      Re-queue {d.host}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
