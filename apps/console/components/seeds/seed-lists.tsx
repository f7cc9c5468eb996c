'use client';

import { useEffect, useState, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import { SEED_LISTS, SEEDS_PAGE } from '../../lib/api/page-inputs';
import type { RouterInputs, RouterOutputs } from '../../lib/api/router-types';
import { api } from '../../lib/client/trpc';
import { useQuery } from '../../lib/client/use-query';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { Panel } from '../ui/panel';
import { QueryList } from '../ui/query-list';
import { Time } from '../ui/time';

const POLL_MS = 10_000;

/** The first answers of the seeds page, asked by its server. */
export interface SeedListsInitial {
  lists: Settled<RouterOutputs['seeds']['lists']>;
  seeds: Settled<RouterOutputs['seeds']['list']>;
}

/**
 * Seed lists with their sizes, and the seeds of the one chosen (or all), a page at a time.
 * `version` changes when seeds were added on this page: both are read again at once.
 */
export function SeedLists(props: { version: number; initial?: SeedListsInitial }): ReactNode {
  const lists = useQuery(api.seeds.lists, SEED_LISTS, {
    pollMs: POLL_MS,
    initial: props.initial?.lists,
  });
  const [chosen, setChosen] = useState<string | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const input: RouterInputs['seeds']['list'] = { ...SEEDS_PAGE };
  if (chosen !== null) input.list = chosen;
  if (cursor !== null) input.cursor = cursor;
  const seeds = useQuery(api.seeds.list, input, {
    pollMs: POLL_MS,
    initial: props.initial?.seeds,
  });
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
        <QueryList
          query={lists}
          what="seed lists"
          empty={
            <EmptyState title="No seed list yet">
              Name a list when you add seeds to keep track of where they came from.
            </EmptyState>
          }
        >
          {(items) => (
            <DataTable
              caption="Seed lists"
              rows={items}
              rowKey={(l) => l.name}
              rowAttributes={(l) => (chosen === l.name ? { 'aria-current': 'true' } : {})}
              columns={[
                {
                  header: 'List',
                  cell: (l) => (
                    <button type="button" className="link-button" onClick={() => choose(l.name)}>
                      {l.name}
                    </button>
                  ),
                },
                { header: 'Seeds', num: true, cell: (l) => l.seeds },
                { header: 'Created', cell: (l) => <Time at={l.created_at} /> },
              ]}
            />
          )}
        </QueryList>
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
        <QueryList
          query={seeds}
          what="seeds"
          empty={
            <EmptyState title="No seeds">
              Add URLs or a sitemap above to start the crawl.
            </EmptyState>
          }
        >
          {(items) => (
            <>
              <DataTable
                caption="Seeds"
                rows={items}
                rowKey={(s) => s.url}
                columns={[
                  { header: 'URL', className: 'break', cell: (s) => s.url },
                  { header: 'Priority', num: true, cell: (s) => s.priority },
                  { header: 'Added', cell: (s) => <Time at={s.added_at} /> },
                  {
                    header: 'In the frontier',
                    cell: (s) => (s.enqueued_at ? <Time at={s.enqueued_at} /> : 'not yet'),
                  },
                  { header: 'Lists', cell: (s) => s.lists.join(', ') || '—' },
                ]}
              />
              {seeds.data?.next_cursor && (
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
        </QueryList>
      </Panel>
    </>
  );
}
