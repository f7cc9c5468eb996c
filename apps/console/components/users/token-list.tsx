'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { formText } from '../../lib/client/form-text';
import { apiSend, type ApiFailure } from '../../lib/client/api';
import { useUser } from '../../lib/client/session-context';
import { useApi } from '../../lib/client/use-api';
import { ROLES, atLeast } from '../../lib/roles';
import type { Page, TokenItem } from '../../lib/types/admin';
import { EmptyState } from '../ui/empty-state';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';

/** API tokens: your own (an admin sees everyone's); the secret is shown once, at creation. */
export function TokenList(): ReactNode {
  const user = useUser();
  const tokens = useApi<Page<TokenItem>>('/tokens?limit=200');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);

  const create = async (e: FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    setError(null);
    setSecret(null);
    const r = await apiSend<{ secret: string }>('POST', '/tokens', {
      name: formText(f, 'name'),
      role: formText(f, 'role'),
    });
    if (!r.ok) return setError(r);
    setSecret(r.data.secret);
    form.reset();
    tokens.refresh();
  };
  const revoke = async (id: string): Promise<void> => {
    setError(null);
    const r = await apiSend('DELETE', `/tokens/${id}`);
    if (!r.ok) return setError(r);
    tokens.refresh();
  };

  return (
    <Panel title="API tokens" aside={user.role === 'admin' ? 'all users' : 'yours'}>
      {tokens.loading && <Loading what="tokens" />}
      {tokens.error && <ErrorBox title="Cannot list tokens" error={tokens.error} />}
      {tokens.data && tokens.data.items.length === 0 && (
        <EmptyState title="No API tokens">
          Create one below for scripts and the CLI (`Authorization: Bearer …`).
        </EmptyState>
      )}
      {tokens.data && tokens.data.items.length > 0 && (
        <table className="table">
          <caption className="visually-hidden">API tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Owner</th>
              <th scope="col">Role</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.items.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td className="mono">{t.prefix}…</td>
                <td>{t.user_email}</td>
                <td>{t.role}</td>
                <td>
                  <Time at={t.last_used_at} />
                </td>
                <td>
                  {t.revoked_at ? (
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
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {secret && (
        <div className="notice notice--ok" role="status">
          <p>Copy this token now; it is not shown again:</p>
          <pre className="code-block" tabIndex={0}>
            {secret}
          </pre>
        </div>
      )}
      {error && <ErrorBox title="The token change was not made" error={error} />}
      <form className="form form--row" onSubmit={(e) => void create(e)} aria-label="New API token">
        <label className="field">
          <span>Token name</span>
          <input name="name" required maxLength={100} placeholder="ci" />
        </label>
        <label className="field">
          <span>Role</span>
          <select name="role" defaultValue={user.role}>
            {ROLES.filter((r) => atLeast(user.role, r)).map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="button button--primary">
          Create token
        </button>
      </form>
    </Panel>
  );
}
