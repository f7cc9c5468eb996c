import type { TokenRow } from '../db/token-repository';
import { storedRole, type Role } from '../auth/roles';

/** A token as lists and the audit log show it: the display prefix, never the secret or hash. */
export interface TokenView {
  id: string;
  name: string;
  role: Role;
  prefix: string;
  user_id: string;
  user_email: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  /** The token this one was created with; revoking that one revokes this one too. */
  parent_token_id: string | null;
  /** Created in a console session: revoked when that session's user's password changes. */
  created_in_session: boolean;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function tokenView(t: TokenRow): TokenView {
  return {
    id: t.id,
    name: t.name,
    role: storedRole(t.role),
    prefix: t.prefix,
    user_id: t.userId,
    user_email: t.user.email,
    created_at: t.createdAt.toISOString(),
    last_used_at: iso(t.lastUsedAt),
    expires_at: iso(t.expiresAt),
    revoked_at: iso(t.revokedAt),
    parent_token_id: t.parentTokenId,
    created_in_session: t.sessionIdHash !== null,
  };
}

/** The fields an audit entry keeps of a token. */
export function tokenAuditView(t: TokenRow) {
  return {
    id: t.id,
    name: t.name,
    role: t.role,
    prefix: t.prefix,
    user_email: t.user.email,
    expires_at: iso(t.expiresAt),
    revoked_at: iso(t.revokedAt),
    parent_token_id: t.parentTokenId,
    created_in_session: t.sessionIdHash !== null,
  };
}
