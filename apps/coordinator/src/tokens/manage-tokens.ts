import { AppError } from '../api/app-error';
import { auditEntry } from '../audit/audit-entry';
import type { CallContext, Caller } from '../auth/caller';
import { atLeast, lowerRole, requireRole, storedRole } from '../auth/roles';
import { newTokenSecret, sha256Hex, tokenDisplayPrefix } from '../auth/secrets';
import type { Store } from '../db/store';
import { tokenAuditView, tokenView, type TokenView } from './token-view';
import { createTokenInput, listTokensInput, revokeTokenInput } from './tokens.types';

/** `GET /v1/tokens`: the caller's own tokens; an admin sees everyone's. */
export async function listTokens(
  deps: { store: Store },
  caller: Caller,
  raw: unknown,
): Promise<{ items: TokenView[]; next_cursor: string | null }> {
  const input = listTokensInput.parse(raw);
  const after = input.cursor ? parseCursor(input.cursor) : undefined;
  const rows = await deps.store.tokens.list(
    atLeast(caller.role, 'admin') ? {} : { userId: caller.userId },
    after,
    input.limit + 1,
  );
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(tokenView),
    next_cursor:
      rows.length > input.limit && last ? `${last.createdAt.getTime()}_${last.id}` : null,
  };
}

function parseCursor(cursor: string): { createdAt: Date; id: string } {
  const [ms, id] = cursor.split('_') as [string, string];
  return { createdAt: new Date(Number(ms)), id };
}

/**
 * `POST /v1/tokens`: a new token for the caller (or, for an admin, another user). Its role is
 * at most the owner's and the caller's, so a token never grants more than whoever made it.
 * Made with a token, it records that token as its parent and may not outlive it: an
 * `expires_at` later than the parent's, or none when the parent expires, is refused (403) —
 * never silently shortened. Made in a console session, it records the session, and is
 * revoked when that session's user's password changes (users/manage-users.ts), as the session
 * is. The answer holds the secret; only its SHA-256 is stored.
 */
export async function createToken(
  deps: { store: Store },
  call: CallContext,
  raw: unknown,
): Promise<{ token: TokenView; secret: string }> {
  const input = createTokenInput.parse(raw);
  const { caller } = call;
  const ownerId = input.user_id ?? caller.userId;
  if (ownerId !== caller.userId) requireRole(caller.role, 'admin', "creating another user's token");
  const owner = await deps.store.users.get(ownerId);
  if (!owner) throw new AppError('NOT_FOUND', `user_id: user ${ownerId} does not exist`);
  if (owner.disabled) throw new AppError('CONFLICT', `user_id: ${owner.email} is disabled`);
  const ceiling = lowerRole(storedRole(owner.role), caller.role);
  const role = input.role ?? ceiling;
  if (!atLeast(ceiling, role))
    throw new AppError(
      'FORBIDDEN',
      `role: a token for ${owner.email} created by this caller can be at most ${ceiling}`,
      { needed: role, role: ceiling },
    );
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  const secret = newTokenSecret();
  const token = await deps.store.transaction(async (r) => {
    const parentTokenId = caller.via === 'token' ? caller.tokenId : null;
    const sessionIdHash = caller.via === 'session' ? caller.sessionIdHash : null;
    // The lock orders this against revocations and password changes: what they revoke
    // includes this token, or this call sees what they revoked (each committed first).
    if (parentTokenId !== null || sessionIdHash !== null) await r.tokens.lockLineage();
    if (parentTokenId !== null) {
      const parent = await r.tokens.get(parentTokenId);
      // Revoked since this call was authenticated (its revocation committed first).
      if (!parent || parent.revokedAt)
        throw new AppError('UNAUTHENTICATED', 'this API token was revoked');
      assertWithinParent(parent.expiresAt, expiresAt);
    }
    if (sessionIdHash !== null) {
      const session = await r.sessions.get(sessionIdHash);
      if (!session || session.revokedAt)
        throw new AppError('UNAUTHENTICATED', 'the session has ended; log in again');
    }
    const row = await r.tokens.create({
      userId: owner.id,
      name: input.name,
      role,
      prefix: tokenDisplayPrefix(secret),
      tokenHash: sha256Hex(secret),
      expiresAt,
      parentTokenId,
      sessionIdHash,
    });
    await r.audit.record(auditEntry(call, 'tokens.create', row.id, null, tokenAuditView(row)));
    return row;
  });
  return { token: tokenView(token), secret };
}

/** Refuses an expiry later than the parent token's (or none, when the parent has one). */
function assertWithinParent(parentExpiresAt: Date | null, expiresAt: Date | null): void {
  if (parentExpiresAt === null) return;
  if (expiresAt !== null && expiresAt <= parentExpiresAt) return;
  const max = parentExpiresAt.toISOString();
  throw new AppError(
    'FORBIDDEN',
    `expires_at: the API token making this call expires at ${max}, and a token can only create tokens that expire no later than itself; give an expires_at up to ${max}`,
    { max_expires_at: max },
  );
}

/**
 * `DELETE /v1/tokens/{id}`: revokes a token and every token created with it, transitively (a
 * token made with a revoked token stops working too); the next call with any of them is a
 * 401. Callers revoke their own tokens, admins anyone's; someone else's token is "not found" to
 * a non-admin. Each token revoked gets its own audit entry (`revoked_with` names the token
 * whose revocation took it along); revoking a revoked token writes none.
 */
export async function revokeToken(
  deps: { store: Store },
  call: CallContext,
  rawId: string,
): Promise<TokenView & { revoked_with_it: string[] }> {
  const { id } = revokeTokenInput.parse({ id: rawId });
  const { caller } = call;
  return deps.store.transaction(async (r) => {
    await r.tokens.lockLineage();
    const before = await r.tokens.get(id);
    if (!before || (before.userId !== caller.userId && !atLeast(caller.role, 'admin')))
      throw new AppError('NOT_FOUND', `token ${id} does not exist`);
    const now = new Date();
    const descendants = (await r.tokens.descendants(id)).filter((t) => !t.revokedAt);
    await r.tokens.revokeMany(
      descendants.map((t) => t.id),
      now,
    );
    for (const t of descendants) {
      const after = { ...t, revokedAt: now };
      await r.audit.record(
        auditEntry(call, 'tokens.revoke', t.id, tokenAuditView(t), {
          ...tokenAuditView(after),
          revoked_with: id,
        }),
      );
    }
    const revokedWithIt = descendants.map((t) => t.id);
    if (before.revokedAt) return { ...tokenView(before), revoked_with_it: revokedWithIt };
    const after = await r.tokens.revoke(id, now);
    await r.audit.record(
      auditEntry(call, 'tokens.revoke', id, tokenAuditView(before), tokenAuditView(after)),
    );
    return { ...tokenView(after), revoked_with_it: revokedWithIt };
  });
}
