import { ConfigError, type Config } from '@crawler/domain/config';
import type { Logger } from '@crawler/adapters/log';
import { auditEntry, SYSTEM } from '../audit/audit-entry';
import type { Repos, Store } from '../db/store';
import type { UserRow } from '../db/user-repository';
import { tokenAuditView } from '../tokens/token-view';
import { userAuditView } from '../users/user-view';
import { hashPassword, OWASP_SCRYPT, scryptParams } from './password';
import { sha256Hex, tokenDisplayPrefix } from './secrets';

/** Owner of ADMIN_TOKEN when no admin exists: an account without a password. */
const TOKEN_OWNER_EMAIL = 'admin@localhost';

type BootstrapConfig = Pick<Config, 'ADMIN_EMAIL' | 'ADMIN_PASSWORD' | 'ADMIN_TOKEN'> &
  Partial<Pick<Config, 'PASSWORD_SCRYPT_LOG2_N'>>;

/**
 * First start of an installation: with ADMIN_EMAIL and ADMIN_PASSWORD, creates that admin while
 * the users table is empty (never later: changing the variables does not reset a password);
 * with ADMIN_TOKEN, stores it as an admin API token unless a token with that secret exists
 * (a revoked one stays revoked). Serialized by a lock, so coordinators may start together.
 */
export async function bootstrapAdmin(
  store: Store,
  config: BootstrapConfig,
  log: Logger,
): Promise<void> {
  const { ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN } = config;
  if ((ADMIN_EMAIL === undefined) !== (ADMIN_PASSWORD === undefined)) {
    const missing = ADMIN_EMAIL === undefined ? 'ADMIN_EMAIL' : 'ADMIN_PASSWORD';
    throw new ConfigError([`${missing}="": set ADMIN_EMAIL and ADMIN_PASSWORD together`]);
  }
  const passwordHash =
    ADMIN_PASSWORD !== undefined
      ? await hashPassword(
          ADMIN_PASSWORD,
          config.PASSWORD_SCRYPT_LOG2_N !== undefined
            ? scryptParams(config.PASSWORD_SCRYPT_LOG2_N)
            : OWASP_SCRYPT,
        )
      : null;
  await store.transaction(async (r) => {
    await r.users.lockAccounts();
    if (ADMIN_EMAIL !== undefined && passwordHash !== null && (await r.users.count()) === 0) {
      const user = await createAdmin(r, ADMIN_EMAIL.toLowerCase(), passwordHash);
      log.info({ email: user.email }, 'created the first admin from ADMIN_EMAIL');
    }
    if (ADMIN_TOKEN !== undefined) await storeAdminToken(r, ADMIN_TOKEN, ADMIN_EMAIL, log);
  });
}

async function createAdmin(r: Repos, email: string, passwordHash: string | null): Promise<UserRow> {
  const user = await r.users.create({
    email,
    name: passwordHash ? 'admin' : 'ADMIN_TOKEN owner',
    role: 'admin',
    passwordHash,
  });
  await r.audit.record(auditEntry(SYSTEM, 'users.create', user.email, null, userAuditView(user)));
  return user;
}

async function storeAdminToken(
  r: Repos,
  secret: string,
  adminEmail: string | undefined,
  log: Logger,
): Promise<void> {
  const tokenHash = sha256Hex(secret);
  const existing = await r.tokens.findByHash(tokenHash);
  if (existing) {
    if (existing.revokedAt)
      log.warn({ token: existing.id }, 'ADMIN_TOKEN was revoked; not restoring it');
    return;
  }
  const named = adminEmail ? await r.users.getForLogin(adminEmail.toLowerCase()) : null;
  const owner =
    (named && named.role === 'admin' && !named.disabled ? named : null) ??
    (await r.users.firstActiveAdmin()) ??
    (await createAdmin(r, TOKEN_OWNER_EMAIL, null));
  const token = await r.tokens.create({
    userId: owner.id,
    name: 'ADMIN_TOKEN',
    role: 'admin',
    prefix: tokenDisplayPrefix(secret),
    tokenHash,
    expiresAt: null,
  });
  await r.audit.record(auditEntry(SYSTEM, 'tokens.create', token.id, null, tokenAuditView(token)));
  log.info({ owner: owner.email, token: token.id }, 'stored ADMIN_TOKEN as an admin API token');
}
