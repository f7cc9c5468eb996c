'use client';

import type { FormEvent, ReactNode } from 'react';
import { refusal, type Settled } from '../../lib/api/api-failure';
import { USERS } from '../../lib/api/page-inputs';
import type { RouterOutputs } from '../../lib/api/router-types';
import { formText } from '../../lib/client/form-text';
import { api } from '../../lib/client/trpc';
import { useAction } from '../../lib/client/use-action';
import { useQuery } from '../../lib/client/use-query';
import { isRole } from '../../lib/roles';
import { ActionStatus } from '../ui/action-status';
import { DataTable } from '../ui/data-table';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { RoleField } from './role-field';
import { UserRoleForm } from './user-role-form';

/** Accounts (admin): create, change role (picked, then saved), disable. */
export function UserList(props: { initial?: Settled<RouterOutputs['users']['list']> }): ReactNode {
  const users = useQuery(api.users.list, USERS, { initial: props.initial });
  const action = useAction('The change was not made');

  const setDisabled = async (id: string, email: string, disabled: boolean): Promise<void> => {
    const r = await action.run(() => api.users.update.mutate({ id, patch: { disabled } }), {
      done: () => `${email} ${disabled ? 'disabled' : 'enabled'}.`,
    });
    if (r.ok) users.refresh();
  };
  const create = async (e: FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const [email, role] = [formText(f, 'email'), formText(f, 'role')];
    if (!isRole(role)) return action.refuse(refusal('BAD_REQUEST', 'Pick a role.'));
    const r = await action.run(
      () =>
        api.users.create.mutate({
          email,
          name: formText(f, 'name'),
          password: formText(f, 'password'),
          role,
        }),
      { done: () => `Created ${email}.`, failed: 'The user was not created' },
    );
    if (!r.ok) return;
    form.reset();
    users.refresh();
  };

  return (
    <Panel title="Users">
      {users.loading && <Loading what="users" />}
      {users.error && <ErrorBox title="Cannot list users" error={users.error} />}
      {users.data && (
        <DataTable
          caption="Users"
          rows={users.data.items}
          rowKey={(u) => u.id}
          columns={[
            { header: 'Email', cell: (u) => u.email },
            { header: 'Name', cell: (u) => u.name || '—' },
            {
              header: 'Role',
              cell: (u) => <UserRoleForm user={u} action={action} onSaved={users.refresh} />,
            },
            {
              header: 'State',
              cell: (u) => (
                <button
                  type="button"
                  className="button button--small"
                  onClick={() => void setDisabled(u.id, u.email, !u.disabled)}
                >
                  {u.disabled ? 'Enable' : 'Disable'}
                </button>
              ),
            },
          ]}
        />
      )}
      <ActionStatus action={action} />
      <form className="form form--row" onSubmit={(e) => void create(e)} aria-label="New user">
        <label className="field">
          <span>Email</span>
          <input name="email" type="email" required />
        </label>
        <label className="field">
          <span>Name</span>
          <input name="name" />
        </label>
        <label className="field">
          <span>Password (8+ characters)</span>
          <input
            name="password"
            type="password"
            minLength={8}
            required
            autoComplete="new-password"
          />
        </label>
        <RoleField defaultValue="viewer" />
        <button type="submit" className="button button--primary">
          Add user
        </button>
      </form>
    </Panel>
  );
}
