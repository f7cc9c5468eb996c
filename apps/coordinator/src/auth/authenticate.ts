import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../api/app-error';
import type { SessionRepository } from '../db/session-repository';
import type { TokenRepository } from '../db/token-repository';
import type { Caller } from './caller';
import { lowerRole, storedRole } from './roles';
import { sha256Hex, TOKEN_PREFIX } from './secrets';
import { readSessionCookie } from './session-cookie';

/** last_used_at / last_seen_at are written at most this often per token or session. */
const TOUCH_EVERY_MS = 60_000;

const unauthenticated = (message: string) => new AppError('UNAUTHENTICATED', message);
/** Whether a last-use time is due for a write (so most calls only read). */
const stale = (at: Date | null, now: Date) => !at || now.getTime() - at.getTime() >= TOUCH_EVERY_MS;

/**
 * Resolves the caller of a request from `Authorization: Bearer <token>` or, without that
 * header, the session cookie. Returns null when the request carries neither; throws
 * UNAUTHENTICATED when what it carries is unknown, revoked, expired or belongs to a disabled
 * account. Every call reads Postgres (no cache), so a revocation applies to the next call.
 */
export async function authenticate(
  deps: { tokens: TokenRepository; sessions: SessionRepository },
  headers: IncomingHttpHeaders,
  now = new Date(),
): Promise<Caller | null> {
  const authorization = headers.authorization;
  if (authorization !== undefined) return fromBearer(deps.tokens, authorization, now);
  const sessionId = readSessionCookie(headers);
  if (sessionId !== null) return fromSession(deps.sessions, sessionId, now);
  return null;
}

async function fromBearer(tokens: TokenRepository, header: string, now: Date): Promise<Caller> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthenticated('the Authorization header must be "Bearer <API token>"');
  const secret = m[1]!;
  if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 256)
    throw unauthenticated(`an API token starts with "${TOKEN_PREFIX}"`);
  const token = await tokens.findByHash(sha256Hex(secret));
  if (!token) throw unauthenticated('unknown API token');
  if (token.revokedAt) throw unauthenticated('this API token was revoked');
  if (token.expiresAt && token.expiresAt <= now)
    throw unauthenticated(`this API token expired at ${token.expiresAt.toISOString()}`);
  if (token.user.disabled) throw unauthenticated('the account owning this API token is disabled');
  if (stale(token.lastUsedAt, now)) await tokens.touch(token.id, now, TOUCH_EVERY_MS);
  return {
    userId: token.userId,
    email: token.user.email,
    // A user demoted after creating the token loses the rights at once.
    role: lowerRole(storedRole(token.role), storedRole(token.user.role)),
    via: 'token',
    tokenId: token.id,
    tokenName: token.name,
    sessionIdHash: null,
  };
}

async function fromSession(
  sessions: SessionRepository,
  sessionId: string,
  now: Date,
): Promise<Caller> {
  // The message is the same whatever is wrong: the browser just needs to log in again.
  const expired = unauthenticated('the session has ended; log in again');
  if (!/^[A-Za-z0-9_-]{43}$/.test(sessionId)) throw expired;
  const idHash = sha256Hex(sessionId);
  const session = await sessions.get(idHash);
  if (!session || session.revokedAt || session.expiresAt <= now || session.user.disabled)
    throw expired;
  if (stale(session.lastSeenAt, now)) await sessions.touch(idHash, now, TOUCH_EVERY_MS);
  return {
    userId: session.userId,
    email: session.user.email,
    role: storedRole(session.user.role),
    via: 'session',
    tokenId: null,
    tokenName: null,
    sessionIdHash: idHash,
  };
}
