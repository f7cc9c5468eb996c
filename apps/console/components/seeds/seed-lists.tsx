'use client';

import { useEffect, useState, type ReactNode } from 'react';
import { useApi } from '../../lib/client/use-api';
import { EmptyState } from '../ui/empty-state';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';

interface SeedList {
  name: string;
  seeds: number;
  created_at: string;
}

interface Seed {
  url: string;
  priority: number;
  source: string;
  added_at: string;
  enqueued_at: string | null;
  lists: string[];
}

/**
 * Seed lists with their sizes, and the seeds of the one chosen (or all), a page at a time.
 * `version` changes when seeds were added on this page: both are read again at once.
 */
export function SeedLists(props: { version: number }): ReactNode {
  const lists = useApi<{ items: SeedList[] }>('/seed-lists?limit=500', 10_000);
  const [chosen, setChosen] = useState<string | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const query = new URLSearchParams({ limit: '100' });
  if (chosen !== null) query.set('list', chosen);
  if (cursor !== null) query.set('cursor', cursor);
  const seeds = useApi<{ items: Seed[]; next_cursor: string | null }>(
    `/seeds?${query.toString()}`,
    10_000,
  );
  const { refresh: refreshLists } = lists;
  const { refresh: refreshSeeds } = seeds;
  useEffect(() => {
    if (props.version === 0) return;
    refreshLists();
    refreshSeeds();
  }, [props.version, refreshLists, refreshSeeds]);
  const choose = (name: string | null): void => {
    setChosen(name);
    setCursor(null);
  };

  return (
    <>
      <Panel title="Seed lists">
        {lists.loading && <Loading what="seed lists" />}
        {lists.error && <ErrorBox title="Cannot list seed lists" error={lists.error} />}
        {lists.data && lists.data.items.length === 0 && (
          <EmptyState title="No seed list yet">
            Name a list when you add seeds to keep track of where they came from.
          </EmptyState>
        )}
        {lists.data && lists.data.items.length > 0 && (
          <table className="table">
            <caption className="visually-hidden">Seed lists</caption>
            <thead>
              <tr>
                <th scope="col">List</th>
                <th scope="col" className="num">
                  Seeds
                </th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {lists.data.items.map((l) => (
                <tr key={l.name} aria-current={chosen === l.name ? 'true' : undefined}>
                  <td>
                    <button type="button" className="link-button" onClick={() => choose(l.name)}>
                      {l.name}
                    </button>
                  </td>
                  <td className="num">{l.seeds}</td>
                  <td>
                    <Time at={l.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      <Panel
        title={chosen === null ? 'Seeds' : `Seeds in ${chosen}`}
        aside={
          chosen !== null ? (
            <button type="button" className="link-button" onClick={() => choose(null)}>
              show all seeds
            </button>
          ) : (
            'oldest first'
          )
        }
      >
        {seeds.loading && <Loading what="seeds" />}
        {seeds.error && <ErrorBox title="Cannot list seeds" error={seeds.error} />}
        {seeds.data && seeds.data.items.length === 0 && (
          <EmptyState title="No seeds">Add URLs or a sitemap above to start the crawl.</EmptyState>
        )}
        {seeds.data && seeds.data.items.length > 0 && (
          <>
            <table className="table">
              <caption className="visually-hidden">Seeds</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col" className="num">
                    Priority
                  </th>
                  <th scope="col">Added</th>
                  <th scope="col">In the frontier</th>
                  <th scope="col">Lists</th>
                </tr>
              </thead>
              <tbody>
                {seeds.data.items.map((s) => (
                  <tr key={s.url}>
                    <td className="break">{s.url}</td>
                    <td className="num">{s.priority}</td>
                    <td>
                      <Time at={s.added_at} />
                    </td>
                    <td>{s.enqueued_at ? <Time at={s.enqueued_at} /> : 'not yet'}</td>
                    <td>{s.lists.join(', ') || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {seeds.data.next_cursor && (
              <button
                type="button"
                className="button"
                onClick={() => setCursor(seeds.data?.next_cursor ?? null)}
              >
                Next 100 seeds
              </button>
            )}
          </>
        )}
      </Panel>
    </>
  );
}
