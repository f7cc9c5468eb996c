import type { Prisma } from '../db/generated/client';
import type { AuditRepository, AuditRow } from '../db/audit-repository';
import { listAuditInput } from './audit.types';

export interface AuditView {
  /** A decimal string: ids are 64-bit. */
  id: string;
  at: string;
  actor: { user_id: string | null; token_id: string | null; label: string };
  action: string;
  target: string | null;
  before: Prisma.JsonValue;
  after: Prisma.JsonValue;
  request_id: string | null;
  source_ip: string | null;
}

function view(r: AuditRow): AuditView {
  return {
    id: r.id.toString(),
    at: r.at.toISOString(),
    actor: { user_id: r.actorUserId, token_id: r.actorTokenId, label: r.actorLabel },
    action: r.action,
    target: r.target,
    before: r.before,
    after: r.after,
    request_id: r.requestId,
    source_ip: r.sourceIp,
  };
}

/** A page of the audit log, newest first; `next_cursor` is null on the last page. */
export async function listAudit(
  deps: { audit: AuditRepository },
  raw: unknown,
): Promise<{ items: AuditView[]; next_cursor: string | null }> {
  const input = listAuditInput.parse(raw);
  const rows = await deps.audit.list(
    { target: input.target, action: input.action },
    input.cursor !== undefined ? BigInt(input.cursor) : undefined,
    input.limit + 1,
  );
  const page = rows.slice(0, input.limit);
  return {
    items: page.map(view),
    next_cursor: rows.length > input.limit ? page[page.length - 1]!.id.toString() : null,
  };
}
