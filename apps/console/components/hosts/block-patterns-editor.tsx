'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { apiSend, type ApiFailure } from '../../lib/client/api';
import { useCan } from '../../lib/client/session-context';
import { useApi } from '../../lib/client/use-api';
import type { BlockPatterns } from '../../lib/types/hosts';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';

/**
 * The URL block patterns of a host or `*.example.com` (`/v1/hosts/{host}/block-patterns`): its
 * own, with Remove buttons, those its domains give it, and a form to add one; read-only below
 * operator.
 */
export function BlockPatternsEditor(props: { host: string; onChanged: () => void }): ReactNode {
  const path = `/hosts/${encodeURIComponent(props.host)}/block-patterns`;
  const list = useApi<BlockPatterns>(path);
  const canEdit = useCan('operator');
  const [pattern, setPattern] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const send = async (
    method: 'POST' | 'DELETE',
    target: string,
    body: unknown,
    done: (r: BlockPatterns) => string,
  ): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setSaved(null);
    const r = await apiSend<BlockPatterns>(method, target, body);
    setBusy(false);
    if (!r.ok) {
      setError(r);
      return false;
    }
    setSaved(done(r.data));
    list.refresh();
    props.onChanged();
    return true;
  };

  const add = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const ok = await send('POST', path, { pattern }, (r) =>
      r.changed === false
        ? `${pattern.trim()} was already blocked.`
        : `Pattern added: agents drop matching links within seconds.`,
    );
    if (ok) setPattern('');
  };
  const remove = (p: string): void =>
    void send(
      'DELETE',
      `${path}?${new URLSearchParams({ pattern: p }).toString()}`,
      undefined,
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
            <table className="table">
              <caption className="visually-hidden">Block patterns of {d.host}</caption>
              <thead>
                <tr>
                  <th scope="col">Pattern</th>
                  <th scope="col">Added</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.patterns.map((p) => (
                  <tr key={p.pattern}>
                    <td className="break">
                      <code>{p.pattern}</code>
                    </td>
                    <td>
                      <Time at={p.created_at} />
                    </td>
                    <td>
                      <button
                        type="button"
                        className="button button--small"
                        aria-label={`Remove pattern ${p.pattern}`}
                        disabled={!canEdit || busy}
                        onClick={() => remove(p.pattern)}
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
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
      {saved && (
        <p className="notice notice--ok" role="status">
          {saved}
        </p>
      )}
      {error && <ErrorBox title="The block patterns were not changed" error={error} />}
    </Panel>
  );
}
