import { AppError } from '../api/app-error';
import { auditEntry, type Actor } from '../audit/audit-entry';
import { hashPassword, type ScryptParams } from '../auth/password';
import type { Repos, Store } from '../db/store';
import { tokenAuditView } from '../tokens/token-view';
import { EmailTakenError } from '../db/user-repository';
import { userAuditView, userView, type UserView } from './user-view';
import { createUserInput, listUsersInput, userIdInput, userPatch } from './users.types';

/** `GET /v1/users`: a page of users ordered by email; `next_cursor` is null on the last page. */
export async function listUsers(
  deps: { store: Store },
  raw: unknown,
): Promise<{ items: UserView[]; next_cursor: string | null }> {
  const input = listUsersInput.parse(raw);
  const rows = await deps.store.users.list(input.cursor, input.limit + 1);
  const page = rows.slice(0, input.limit);
  return {
    items: page.map(userView),
    next_cursor: rows.length > input.limit ? page[page.length - 1]!.email : null,
  };
}

/** `POST /v1/users`: a new account; 409 when the email is taken. */
export async function createUser(
  deps: { store: Store; passwordParams: ScryptParams },
  actor: Actor,
  raw: unknown,
): Promise<UserView> {
  const input = createUserInput.parse(raw);
  // Hash before the transaction: scrypt takes tens of ms and must not hold a connection.
  const passwordHash = await hashPassword(input.password, deps.passwordParams);
  try {
    return await deps.store.transaction(async (r) => {
      const user = await r.users.create({
        email: input.email,
        name: input.name,
        role: input.role,
        passwordHash,
      });
      await r.audit.record(
        auditEntry(actor, 'users.create', user.email, null, userAuditView(user)),
      );
      return userView(user);
    });
  } catch (err) {
    if (err instanceof EmailTakenError)
      throw new AppError('CONFLICT', `email: ${input.email} already has an account`);
    throw err;
  }
}

/**
 * `PATCH /v1/users/{id}`: name, role, disabled, password. Disabling or a new password ends the
 * user's sessions; a new password also revokes the tokens created in any of them, with their
 * descendants (each audited `tokens.revoke`, `revoked_because: "password_changed"`), since
 * whoever held a session before the change could have made one. Refused (409) when it would
 * leave no active admin, so an installation can never lock itself out.
 */
export async function updateUser(
  deps: { store: Store; passwordParams: ScryptParams },
  actor: Actor,
  rawId: string,
  rawPatch: unknown,
): Promise<UserView> {
  const { id } = userIdInput.parse({ id: rawId });
  const patch = userPatch.parse(rawPatch);
  const passwordHash =
    patch.password !== undefined
      ? await hashPassword(patch.password, deps.passwordParams)
      : undefined;
  return deps.store.transaction(async (r) => {
    await r.users.lockAccounts();
    const before = await r.users.get(id);
    if (!before) throw new AppError('NOT_FOUND', `user ${id} does not exist`);
    const after = await r.users.update(id, {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.role !== undefined ? { role: patch.role } : {}),
      ...(patch.disabled !== undefined ? { disabled: patch.disabled } : {}),
      ...(passwordHash !== undefined ? { passwordHash } : {}),
    });
    const wasActiveAdmin = before.role === 'admin' && !before.disabled;
    const isActiveAdmin = after.role === 'admin' && !after.disabled;
    if (wasActiveAdmin && !isActiveAdmin && (await r.users.countActiveAdmins()) === 0)
      // Thrown inside the transaction: the update above is rolled back.
      throw new AppError(
        'CONFLICT',
        `${before.email} is the last active admin; make another user admin first`,
      );
    const now = new Date();
    let tokensRevoked = 0;
    if (passwordHash !== undefined) tokensRevoked = await revokeSessionTokens(r, actor, id, now);
    if (passwordHash !== undefined || (after.disabled && !before.disabled))
      await r.sessions.revokeAllOf(id, now);
    await r.audit.record(
      auditEntry(actor, 'users.update', after.email, userAuditView(before), {
        ...userAuditView(after),
        ...(passwordHash !== undefined
          ? { password_changed: true, tokens_revoked: tokensRevoked }
          : {}),
      }),
    );
    return userView(after);
  });
}

/**
 * Revokes the tokens created in the sessions of `userId`, and their descendants, in the
 * password change's transaction; returns how many. Under the lineage lock, so a token being
 * created in one of those sessions meanwhile is either revoked here or refused there.
 */
async function revokeSessionTokens(
  r: Repos,
  actor: Actor,
  userId: string,
  now: Date,
): Promise<number> {
  await r.tokens.lockLineage();
  const tokens = await r.tokens.mintedInSessionsOf(userId);
  await r.tokens.revokeMany(
    tokens.map((t) => t.id),
    now,
  );
  for (const t of tokens)
    await r.audit.record(
      auditEntry(actor, 'tokens.revoke', t.id, tokenAuditView(t), {
        ...tokenAuditView({ ...t, revokedAt: now }),
        revoked_because: 'password_changed',
      }),
    );
  return tokens.length;
}
