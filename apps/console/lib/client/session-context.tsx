'use client';

import { createContext, useContext, type ReactNode } from 'react';
import { atLeast, type Role, type SessionUser } from '../roles';

const SessionContext = createContext<SessionUser | null>(null);

export function SessionProvider(props: { user: SessionUser; children: ReactNode }): ReactNode {
  return <SessionContext.Provider value={props.user}>{props.children}</SessionContext.Provider>;
}

/** The signed-in user; pages under the signed-in layout always have one. */
export function useUser(): SessionUser {
  const user = useContext(SessionContext);
  if (!user) throw new Error('useUser outside SessionProvider');
  return user;
}

/** True when the signed-in user's role allows what `need` does (controls are hidden otherwise). */
export function useCan(need: Role): boolean {
  return atLeast(useUser().role, need);
}
