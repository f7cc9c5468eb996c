'use client';

import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { UserItem } from '../../lib/api/router-types';
import { api } from '../../lib/client/trpc';
import type { Action } from '../../lib/client/use-action';
import { ROLES, isRole, type Role } from '../../lib/roles';

/**
 * A user's role: picking one in the list changes nothing yet; the Save button sends it. Until
 * then the row says the choice is not saved, and the list can be set back. What happened is
 * shown by the list's `action`.
 */
export function UserRoleForm(props: {
  user: UserItem;
  action: Pick<Action, 'run'>;
  onSaved: () => void;
}): ReactNode {
  const { user } = props;
  const [draft, setDraft] = useState<Role>(user.role);
  const [saving, setSaving] = useState(false);
  // Saved, and the reloaded list does not show it yet: not a pending change any more.
  const [savedRole, setSavedRole] = useState<Role | null>(null);
  // The stored role changed (saved here, or by someone else and reloaded): show it.
  useEffect(() => {
    setDraft(user.role);
    setSavedRole(null);
  }, [user.role]);
  const changed = draft !== user.role && draft !== savedRole;

  const save = async (e: FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    if (!changed || saving) return;
    setSaving(true);
    const r = await props.action.run(
      () => api.users.update.mutate({ id: user.id, patch: { role: draft } }),
      {
        done: () => `Saved: ${user.email} is now ${draft} (was ${user.role}).`,
        failed: `The role of ${user.email} was not changed (still ${user.role})`,
      },
    );
    setSaving(false);
    if (!r.ok) return;
    setSavedRole(draft);
    props.onSaved();
  };

  return (
    <form className="form--row" onSubmit={(e) => void save(e)} aria-label={`Role of ${user.email}`}>
      <label className="visually-hidden" htmlFor={`role-${user.id}`}>
        Role of {user.email}
      </label>
      <select
        id={`role-${user.id}`}
        value={draft}
        disabled={saving}
        onChange={(e) => {
          if (isRole(e.target.value)) setDraft(e.target.value);
        }}
      >
        {ROLES.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
      <button
        type="submit"
        className="button button--small button--primary"
        disabled={!changed || saving}
        aria-label={`Save role of ${user.email}`}
      >
        {saving ? 'Saving…' : 'Save'}
      </button>
      {changed && !saving && (
        <span className="muted" data-testid={`role-unsaved-${user.id}`}>
          not saved
        </span>
      )}
    </form>
  );
}
