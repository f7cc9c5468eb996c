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
 * The answer holds the secret; only its SHA-256 is stored, so it cannot be shown again.
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
  const secret = newTokenSecret();
  const token = await deps.store.transaction(async (r) => {
    const row = await r.tokens.create({
      userId: owner.id,
      name: input.name,
      role,
      prefix: tokenDisplayPrefix(secret),
      tokenHash: sha256Hex(secret),
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    });
    await r.audit.record(auditEntry(call, 'tokens.create', row.id, null, tokenAuditView(row)));
    return row;
  });
  return { token: tokenView(token), secret };
}

/**
 * `DELETE /v1/tokens/{id}`: revokes a token; the next call with it is a 401. Callers revoke
 * their own tokens, admins anyone's; someone else's token is "not found" to a non-admin.
 * Revoking a revoked token changes nothing and writes no audit entry.
 */
export async function revokeToken(
  deps: { store: Store },
  call: CallContext,
  rawId: string,
): Promise<TokenView> {
  const { id } = revokeTokenInput.parse({ id: rawId });
  const { caller } = call;
  return deps.store.transaction(async (r) => {
    const before = await r.tokens.get(id);
    if (!before || (before.userId !== caller.userId && !atLeast(caller.role, 'admin')))
      throw new AppError('NOT_FOUND', `token ${id} does not exist`);
    if (before.revokedAt) return tokenView(before);
    const after = await r.tokens.revoke(id, new Date());
    await r.audit.record(
      auditEntry(call, 'tokens.revoke', id, tokenAuditView(before), tokenAuditView(after)),
    );
    return tokenView(after);
  });
}
