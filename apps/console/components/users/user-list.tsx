'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { formText } from '../../lib/client/form-text';
import { apiSend, type ApiFailure } from '../../lib/client/api';
import { useApi } from '../../lib/client/use-api';
import { ROLES } from '../../lib/roles';
import type { Page, UserItem } from '../../lib/types/admin';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { UserRoleForm } from './user-role-form';

/** Accounts (admin): create, change role (picked, then saved), disable. */
export function UserList(): ReactNode {
  const users = useApi<Page<UserItem>>('/users?limit=200');
  const [error, setError] = useState<{ title: string; failure: ApiFailure } | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const change = async (id: string, patch: Partial<UserItem>, what: string): Promise<void> => {
    setError(null);
    setNote(null);
    const r = await apiSend('PATCH', `/users/${id}`, patch);
    if (!r.ok) return setError({ title: 'The change was not made', failure: r });
    setNote(what);
    users.refresh();
  };
  const create = async (e: FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    setError(null);
    setNote(null);
    const r = await apiSend('POST', '/users', {
      email: formText(f, 'email'),
      name: formText(f, 'name'),
      password: formText(f, 'password'),
      role: formText(f, 'role'),
    });
    if (!r.ok) return setError({ title: 'The user was not created', failure: r });
    setNote(`Created ${formText(f, 'email')}.`);
    form.reset();
    users.refresh();
  };

  return (
    <Panel title="Users">
      {users.loading && <Loading what="users" />}
      {users.error && <ErrorBox title="Cannot list users" error={users.error} />}
      {users.data && (
        <table className="table">
          <caption className="visually-hidden">Users</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {users.data.items.map((u) => (
              <tr key={u.id}>
                <td>{u.email}</td>
                <td>{u.name || '—'}</td>
                <td>
                  <UserRoleForm
                    user={u}
                    onSaved={(message) => {
                      setError(null);
                      setNote(message);
                      users.refresh();
                    }}
                    onFailed={(title, failure) => {
                      setNote(null);
                      setError({ title, failure });
                    }}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() =>
                      void change(
                        u.id,
                        { disabled: !u.disabled },
                        `${u.email} ${u.disabled ? 'enabled' : 'disabled'}.`,
                      )
                    }
                  >
                    {u.disabled ? 'Enable' : 'Disable'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {note && (
        <p className="notice notice--ok" role="status">
          {note}
        </p>
      )}
      {error && <ErrorBox title={error.title} error={error.failure} />}
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
        <label className="field">
          <span>Role</span>
          <select name="role" defaultValue="viewer">
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="button button--primary">
          Add user
        </button>
      </form>
    </Panel>
  );
}
