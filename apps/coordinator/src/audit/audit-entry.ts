import type { Prisma } from '../db/generated/client';
import type { AuditWrite } from '../db/audit-repository';
import { callerLabel, type Caller, type RequestInfo } from '../auth/caller';

/** Audited actions, named like the tRPC procedures that perform them. */
export type AuditAction =
  | 'seeds.add'
  | 'hosts.update'
  | 'hosts.addBlockPattern'
  | 'hosts.removeBlockPattern'
  | 'settings.update'
  | 'deadLetters.requeue'
  | 'agents.releaseLeases'
  | 'shards.move'
  | 'frontier.rebuild'
  | 'users.create'
  | 'users.update'
  | 'tokens.create'
  | 'tokens.revoke'
  | 'auth.login'
  | 'auth.loginFailed'
  | 'auth.logout';

/**
 * Who acted: an authenticated caller, an anonymous request (a failed login), or the
 * coordinator itself (start-up bootstrap: no request).
 */
export interface Actor {
  caller: Caller | null;
  request: RequestInfo | null;
}

export const SYSTEM: Actor = { caller: null, request: null };

/** Builds an entry; `before`/`after` must never hold password hashes or token secrets. */
export function auditEntry(
  actor: Actor,
  action: AuditAction,
  target: string | null,
  before: Prisma.InputJsonValue | null,
  after: Prisma.InputJsonValue | null,
): AuditWrite {
  const { caller, request } = actor;
  return {
    actorUserId: caller?.userId ?? null,
    actorTokenId: caller?.tokenId ?? null,
    actorLabel: caller ? callerLabel(caller) : request ? 'anonymous' : 'system',
    action,
    target,
    before,
    after,
    requestId: request?.requestId ?? null,
    sourceIp: request?.sourceIp ?? null,
  };
}
