'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import { AUDIT_PAGE } from '../../lib/api/page-inputs';
import type { RouterInputs, RouterOutputs } from '../../lib/api/router-types';
import { formText } from '../../lib/client/form-text';
import { useCan } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { useQuery } from '../../lib/client/use-query';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { NotAllowed } from '../ui/not-allowed';
import { AuditTable } from './audit-table';

/** The audit log, newest first, filtered by target and action, paged by cursor. */
export function AuditLog(props: { initial?: Settled<RouterOutputs['audit']['list']> }): ReactNode {
  const allowed = useCan('operator');
  const [filter, setFilter] = useState({ target: '', action: '' });
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const input: RouterInputs['audit']['list'] = { ...AUDIT_PAGE };
  if (filter.target) input.target = filter.target;
  if (filter.action) input.action = filter.action;
  if (cursor) input.cursor = cursor;
  const page = useQuery(api.audit.list, allowed ? input : null, { initial: props.initial });
  if (!allowed) return <NotAllowed need="operator" />;
  const apply = (e: FormEvent<HTMLFormElement>): void => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setCursors([]);
    setFilter({
      target: formText(f, 'target').trim(),
      action: formText(f, 'action').trim(),
    });
  };
  return (
    <>
      <form className="form form--row panel" role="search" onSubmit={apply}>
        <label className="field">
          <span>Target (host, email, token id)</span>
          <input name="target" defaultValue={filter.target} />
        </label>
        <label className="field">
          <span>Action</span>
          <input name="action" defaultValue={filter.action} placeholder="hosts.update" />
        </label>
        <button type="submit" className="button">
          Filter
        </button>
      </form>
      {page.loading && <Loading what="the audit log" />}
      {page.error && <ErrorBox title="Cannot load the audit log" error={page.error} />}
      {page.data && (
        <AuditTable
          items={page.data.items.map((a) => ({ ...a, actor: a.actor.label }))}
          showTarget
          empty="No audit entries match."
        />
      )}
      <div className="form__actions">
        <button
          type="button"
          className="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          className="button"
          disabled={!page.data?.next_cursor}
          onClick={() => {
            const next = page.data?.next_cursor;
            if (next) setCursors((c) => [...c, next]);
          }}
        >
          Older
        </button>
      </div>
    </>
  );
}
