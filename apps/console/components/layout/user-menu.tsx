'use client';

import { useState, type ReactNode } from 'react';
import { useUser } from '../../lib/client/session-context';

export function UserMenu(): ReactNode {
  const user = useUser();
  const [busy, setBusy] = useState(false);
  const signOut = async (): Promise<void> => {
    setBusy(true);
    await fetch('/api/session', { method: 'DELETE' }).catch(() => undefined);
    window.location.assign('/login');
  };
  return (
    <div className="user-menu">
      <span className="user-menu__who">
        {user.email} <span className={`role role--${user.role}`}>{user.role}</span>
      </span>
      <button type="button" className="button" onClick={() => void signOut()} disabled={busy}>
        Sign out
      </button>
    </div>
  );
}
