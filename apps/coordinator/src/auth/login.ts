import { AppError } from '../api/app-error';
import { auditEntry } from '../audit/audit-entry';
import type { Store } from '../db/store';
import { userView, type UserView } from '../users/user-view';
import { loginInput } from './auth.types';
import type { Caller, RequestInfo } from './caller';
import { verifyDecoy, verifyPassword } from './password';
import { storedRole } from './roles';
import { newSessionId, sha256Hex } from './secrets';
import { clearedSessionCookie, sessionCookie } from './session-cookie';

interface Deps {
  store: Store;
  sessionTtlMs: number;
  cookieSecure: boolean;
}

/**
 * Checks email and password, opens a session and sets its cookie. Any failure (unknown email,
 * wrong password, disabled or password-less account) is the same 401, after the same amount of
 * scrypt work, so the answer does not tell which part was wrong or which accounts exist.
 */
export async function login(deps: Deps, request: RequestInfo, raw: unknown): Promise<UserView> {
  const input = loginInput.parse(raw);
  const user = await deps.store.users.getForLogin(input.email);
  const ok =
    user?.passwordHash != null
      ? await verifyPassword(input.password, user.passwordHash)
      : await verifyDecoy(input.password);
  if (!user || !ok || user.disabled) {
    await deps.store.audit.record(
      auditEntry({ caller: null, request }, 'auth.loginFailed', input.email, null, null),
    );
    throw new AppError('UNAUTHENTICATED', 'email or password is wrong');
  }
  const sessionId = newSessionId();
  const expiresAt = new Date(Date.now() + deps.sessionTtlMs);
  const caller: Caller = {
    userId: user.id,
    email: user.email,
    role: storedRole(user.role),
    via: 'session',
    tokenId: null,
    tokenName: null,
    sessionIdHash: null,
  };
  await deps.store.transaction(async (r) => {
    await r.sessions.create({ idHash: sha256Hex(sessionId), userId: user.id, expiresAt });
    await r.audit.record(
      auditEntry({ caller, request }, 'auth.login', user.email, null, {
        expires_at: expiresAt.toISOString(),
      }),
    );
  });
  request.setCookie(sessionCookie(sessionId, deps.sessionTtlMs, deps.cookieSecure));
  return userView(user);
}

/**
 * Ends the caller's session (when it used one) and clears the cookie. Logging out without a
 * valid session is not an error: the browser ends up logged out either way.
 */
export async function logout(
  deps: Deps,
  request: RequestInfo,
  caller: Caller | null,
): Promise<{ ok: true }> {
  if (caller?.sessionIdHash) {
    const idHash = caller.sessionIdHash;
    await deps.store.transaction(async (r) => {
      if (await r.sessions.revoke(idHash, new Date()))
        await r.audit.record(
          auditEntry({ caller, request }, 'auth.logout', caller.email, null, null),
        );
    });
  }
  request.setCookie(clearedSessionCookie(deps.cookieSecure));
  return { ok: true };
}

/** `GET /v1/auth/me`: the caller's account and how this call was authenticated. */
export async function me(deps: { store: Store }, caller: Caller) {
  const user = await deps.store.users.get(caller.userId);
  if (!user) throw new AppError('UNAUTHENTICATED', 'the account no longer exists');
  return {
    user: userView(user),
    role: caller.role,
    via: caller.via,
    token: caller.tokenId ? { id: caller.tokenId, name: caller.tokenName } : null,
  };
}
