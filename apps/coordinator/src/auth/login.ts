import { AppError } from '../api/app-error';
import { auditEntry } from '../audit/audit-entry';
import type { Store } from '../db/store';
import { userView, type UserView } from '../users/user-view';
import { loginInput } from './auth.types';
import type { Caller, RequestInfo } from './caller';
import { addressBucket } from './client-address';
import { HashQueueFullError, type HashTurn } from './hash-slots';
import type { LoginAttempt, LoginThrottle } from './login-throttle';
import {
  hashPassword,
  needsRehash,
  verifyDecoy,
  verifyPassword,
  type ScryptParams,
} from './password';
import { storedRole } from './roles';
import { newSessionId, sha256Hex } from './secrets';
import { clearedSessionCookie, sessionCookie } from './session-cookie';

/** Failed logins of one account from one address within this long share one audit entry. */
export const FAILED_LOGIN_AUDIT_WINDOW_MS = 60_000;

interface Deps {
  store: Store;
  sessionTtlMs: number;
  cookieSecure: boolean;
  /** Login attempts per account and per client address (Redis). */
  throttle: LoginThrottle;
  /** scrypt cost of password hashes: a weaker stored hash is replaced at a successful login. */
  passwordParams: ScryptParams;
  /** Logins that may wait for a password check at once (LOGIN_HASH_QUEUE_MAX). */
  hashQueueMax: number;
  /** An IPv6 client is its prefix of this many bits (LOGIN_IPV6_PREFIX). */
  ipv6PrefixBits: number;
}

/**
 * Checks email and password, opens a session and sets its cookie. Any failure (unknown email,
 * wrong password, disabled or password-less account) is the same 401, after the same amount of
 * scrypt work, so the answer does not tell which part was wrong or which accounts exist.
 *
 * Every attempt first spends one from the account's, the client address's and the
 * installation's login limits; out of attempts, it gets 429 LOGIN_THROTTLED with Retry-After,
 * without its password being checked. A successful login gives its attempt back, so only
 * failures count. The password check then waits for a hash slot in a bounded queue shared
 * fairly among client addresses; when the queue is full the login gets 429 LOGIN_BUSY with
 * Retry-After at once (and its attempt back) instead of waiting past its client's timeout.
 * Failures are audited at most once per account and address a minute (`after.failures` counts
 * them). A password stored with weaker scrypt parameters than the configured ones is hashed
 * again with them.
 */
export async function login(deps: Deps, request: RequestInfo, raw: unknown): Promise<UserView> {
  const input = loginInput.parse(raw);
  const attempt = await deps.throttle.take(input.email, request.sourceIp);
  if (!attempt.ok) throw throttled(attempt);
  const user = await deps.store.users.getForLogin(input.email);
  const ip = request.sourceIp;
  const turn: HashTurn = {
    client: ip === null ? 'unknown' : addressBucket(ip, deps.ipv6PrefixBits),
    maxWaiting: deps.hashQueueMax,
  };
  let ok: boolean;
  try {
    ok =
      user?.passwordHash != null
        ? await verifyPassword(input.password, user.passwordHash, turn)
        : await verifyDecoy(input.password, deps.passwordParams, turn);
  } catch (err) {
    if (!(err instanceof HashQueueFullError)) throw err;
    await deps.throttle.giveBack(input.email, ip); // no password was checked
    throw busy(err);
  }
  if (!user || !ok || user.disabled) {
    await deps.store.transaction((r) =>
      r.audit.recordLoginFailure(
        auditEntry({ caller: null, request }, 'auth.loginFailed', input.email, null, null),
        FAILED_LOGIN_AUDIT_WINDOW_MS,
      ),
    );
    throw new AppError('UNAUTHENTICATED', 'email or password is wrong');
  }
  await deps.throttle.giveBack(input.email, request.sourceIp);
  const oldHash = user.passwordHash!;
  // Hashed before the transaction: scrypt takes a few hundred ms and must not hold a connection.
  const newHash = needsRehash(oldHash, deps.passwordParams)
    ? await hashPassword(input.password, deps.passwordParams)
    : null;
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
    // Unless the password changed meanwhile (then the new one stands).
    const rehashed =
      newHash !== null && (await r.users.replacePasswordHash(user.id, oldHash, newHash));
    await r.audit.record(
      auditEntry({ caller, request }, 'auth.login', user.email, null, {
        expires_at: expiresAt.toISOString(),
        ...(rehashed ? { password_rehashed: true } : {}),
      }),
    );
  });
  request.setCookie(sessionCookie(sessionId, deps.sessionTtlMs, deps.cookieSecure));
  return userView(user);
}

function throttled(attempt: Extract<LoginAttempt, { ok: false }>): AppError {
  const retryAfterS = Math.ceil(attempt.retryAfterMs / 1000);
  const who =
    attempt.by === 'global'
      ? 'on this installation'
      : attempt.by === 'address'
        ? 'from this address'
        : 'for this account';
  return new AppError(
    'LOGIN_THROTTLED',
    `too many failed logins ${who}; try again in ${retryAfterS} s`,
    { limited: attempt.by, retry_after_s: retryAfterS },
    retryAfterS,
  );
}

function busy(err: HashQueueFullError): AppError {
  const retryAfterS = Math.ceil(err.retryAfterMs / 1000);
  return new AppError(
    'LOGIN_BUSY',
    `too many logins are waiting for their password check; try again in ${retryAfterS} s`,
    { retry_after_s: retryAfterS },
    retryAfterS,
  );
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
