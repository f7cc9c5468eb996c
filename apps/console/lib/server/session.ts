// Who is signed in, for the pages' server side.
import { cache } from 'react';
import { settle } from '../api/api-failure';
import type { SessionUser } from '../roles';
import { readSession } from './session-cookie';
import { serverApi } from './server-api';

export type SessionState =
  | { kind: 'signed-in'; user: SessionUser }
  | { kind: 'signed-out' }
  | { kind: 'unavailable'; message: string };

/** Who is signed in, asked of the coordinator once per request (`auth.me`). */
export const currentSession = cache(async (): Promise<SessionState> => {
  if ((await readSession()) === null) return { kind: 'signed-out' };
  const me = await settle((await serverApi()).auth.me.query());
  if (me.ok) {
    const { id, email, name } = me.data.user;
    return { kind: 'signed-in', user: { id, email, name, role: me.data.role } };
  }
  if (me.code === 'UNAUTHENTICATED') return { kind: 'signed-out' };
  return { kind: 'unavailable', message: me.message };
});
