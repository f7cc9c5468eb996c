'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import { TOKENS } from '../../lib/api/page-inputs';
import type { RouterOutputs } from '../../lib/api/router-types';
import { formText } from '../../lib/client/form-text';
import { useUser } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { useAction } from '../../lib/client/use-action';
import { useQuery } from '../../lib/client/use-query';
import { ROLES, atLeast, isRole } from '../../lib/roles';
import { ActionStatus } from '../ui/action-status';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { Panel } from '../ui/panel';
import { QueryList } from '../ui/query-list';
import { Time } from '../ui/time';
import { RoleField } from './role-field';

/** API tokens: your own (an admin sees everyone's); the secret is shown once, at creation. */
export function TokenList(props: {
  initial?: Settled<RouterOutputs['tokens']['list']>;
}): ReactNode {
  const user = useUser();
  const tokens = useQuery(api.tokens.list, TOKENS, { initial: props.initial });
  const [secret, setSecret] = useState<string | null>(null);
  const action = useAction('The token change was not made');

  const create = async (e: FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const role = formText(f, 'role');
    setSecret(null);
    const r = await action.run(
      () =>
        api.tokens.create.mutate({
          name: formText(f, 'name'),
          ...(isRole(role) ? { role } : {}),
        }),
      { done: () => null },
    );
    if (!r.ok) return;
    setSecret(r.data.secret);
    form.reset();
    tokens.refresh();
  };
  const revoke = async (id: string): Promise<void> => {
    const r = await action.run(() => api.tokens.revoke.mutate({ id }), { done: () => null });
    if (r.ok) tokens.refresh();
  };

  return (
    <Panel title="API tokens" aside={user.role === 'admin' ? 'all users' : 'yours'}>
      <QueryList
        query={tokens}
        what="tokens"
        empty={
          <EmptyState title="No API tokens">
            Create one below for scripts and the CLI (`Authorization: Bearer …`).
          </EmptyState>
        }
      >
        {(items) => (
          <DataTable
            caption="API tokens"
            rows={items}
            rowKey={(t) => t.id}
            columns={[
              { header: 'Name', cell: (t) => t.name },
              { header: 'Prefix', className: 'mono', cell: (t) => `${t.prefix}…` },
              { header: 'Owner', cell: (t) => t.user_email },
              { header: 'Role', cell: (t) => t.role },
              { header: 'Last used', cell: (t) => <Time at={t.last_used_at} /> },
              {
                header: 'State',
                cell: (t) =>
                  t.revoked_at ? (
                    <span className="muted">revoked</span>
                  ) : (
                    <button
                      type="button"
                      className="button button--small"
                      onClick={() => void revoke(t.id)}
                      aria-label={`Revoke token ${t.name}`}
                    >
                      Revoke
                    </button>
                  ),
              },
            ]}
          />
        )}
      </QueryList>
      {secret && (
        <div className="notice notice--ok" role="status">
          <p>Copy this token now; it is not shown again:</p>
          <pre className="code-block" tabIndex={0}>
            {secret}
          </pre>
        </div>
      )}
      <ActionStatus action={action} />
      <form className="form form--row" onSubmit={(e) => void create(e)} aria-label="New API token">
        <label className="field">
          <span>Token name</span>
          <input name="name" required maxLength={100} placeholder="ci" />
        </label>
        <RoleField defaultValue={user.role} roles={ROLES.filter((r) => atLeast(user.role, r))} />
        <button type="submit" className="button button--primary">
          Create token
        </button>
      </form>
    </Panel>
  );
}
