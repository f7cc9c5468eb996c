'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import type { RouterOutputs } from '../../lib/api/router-types';
import { useCan } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { useAction } from '../../lib/client/use-action';
import { useQuery } from '../../lib/client/use-query';
import { ActionStatus } from '../ui/action-status';
import { DataTable } from '../ui/data-table';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';

type BlockPatterns = RouterOutputs['hosts']['blockPatterns'];

/**
 * The URL block patterns of a host or `*.example.com` (`hosts.blockPatterns`): its own, with
 * Remove buttons, those its domains give it, and a form to add one; read-only below operator.
 */
export function BlockPatternsEditor(props: {
  host: string;
  initial?: Settled<BlockPatterns> | undefined;
  onChanged: () => void;
}): ReactNode {
  const { host } = props;
  const list = useQuery(api.hosts.blockPatterns, { host }, { initial: props.initial });
  const canEdit = useCan('operator');
  const [pattern, setPattern] = useState('');
  const action = useAction('The block patterns were not changed');
  const busy = action.busy;

  const send = async (
    call: () => Promise<BlockPatterns>,
    done: (r: BlockPatterns) => string,
  ): Promise<boolean> => {
    const r = await action.run(call, { done });
    if (!r.ok) return false;
    list.refresh();
    props.onChanged();
    return true;
  };

  const add = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const ok = await send(
      () => api.hosts.addBlockPattern.mutate({ host, pattern }),
      (r) =>
        r.changed === false
          ? `${pattern.trim()} was already blocked.`
          : `Pattern added: agents drop matching links within seconds.`,
    );
    if (ok) setPattern('');
  };
  const remove = (p: string): void =>
    void send(
      () => api.hosts.removeBlockPattern.mutate({ host, pattern: p }),
      () => `Pattern ${p} removed.`,
    );

  const d = list.data;
  return (
    <Panel title="URL block patterns" aside="path only; the query is never matched">
      {list.loading && <Loading what="the block patterns" />}
      {list.error && <ErrorBox title="Cannot load the block patterns" error={list.error} />}
      {d && (
        <>
          {d.patterns.length === 0 ? (
            <p className="muted">No block pattern on {d.host}.</p>
          ) : (
            <DataTable
              caption={`Block patterns of ${d.host}`}
              rows={d.patterns}
              rowKey={(p) => p.pattern}
              columns={[
                { header: 'Pattern', className: 'break', cell: (p) => <code>{p.pattern}</code> },
                { header: 'Added', cell: (p) => <Time at={p.created_at} /> },
                {
                  header: <span className="visually-hidden">Actions</span>,
                  cell: (p) => (
                    <button
                      type="button"
                      className="button button--small"
                      aria-label={`Remove pattern ${p.pattern}`}
                      disabled={!canEdit || busy}
                      onClick={() => remove(p.pattern)}
                    >
                      Remove
                    </button>
                  ),
                },
              ]}
            />
          )}
          {d.inherited.length > 0 && (
            <p className="muted">
              Also blocked by its domains:{' '}
              {d.inherited.map((p, i) => (
                <span key={`${p.from} ${p.pattern}`}>
                  {i > 0 && ', '}
                  <code>{p.pattern}</code> (from {p.from})
                </span>
              ))}
              .
            </p>
          )}
        </>
      )}
      <form className="form form--row" onSubmit={(e) => void add(e)}>
        <label className="field field--grow">
          <span>Pattern: a path prefix (/private/) or a glob with * and ? (*.pdf, /*/print/*)</span>
          <input
            name="block_pattern"
            value={pattern}
            onChange={(e) => setPattern(e.target.value)}
            disabled={!canEdit || busy}
            maxLength={256}
            required
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <button type="submit" className="button button--danger" disabled={!canEdit || busy}>
          Add pattern
        </button>
      </form>
      <p className="muted">
        Links whose path matches are dropped when agents find them; URLs already queued are skipped
        when leased. Without <code>*</code> a pattern is a prefix; with <code>*</code> it must match
        the whole path (<code>*</code> also matches <code>/</code>). On <code>*.example.com</code>{' '}
        it applies to the domain and all its subdomains.
      </p>
      <ActionStatus action={action} />
    </Panel>
  );
}
