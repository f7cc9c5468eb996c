'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { formText } from '../../lib/client/form-text';
import { query } from '../../lib/client/api';
import { useCan } from '../../lib/client/session-context';
import { useApi } from '../../lib/client/use-api';
import type { AuditItem, Page } from '../../lib/types/admin';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { NotAllowed } from '../ui/not-allowed';
import { AuditTable } from './audit-table';

/** The audit log, newest first, filtered by target and action, paged by cursor. */
export function AuditLog(): ReactNode {
  const allowed = useCan('operator');
  const [filter, setFilter] = useState({ target: '', action: '' });
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const page = useApi<Page<AuditItem>>(
    allowed ? `/audit${query({ ...filter, cursor, limit: 50 })}` : null,
  );
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
        <AuditTable items={page.data.items} showTarget empty="No audit entries match." />
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
