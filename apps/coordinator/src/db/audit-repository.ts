import type { Prisma } from './generated/client';
import type { DbClient } from './prisma';

/** One audit entry as written; `before`/`after` are plain JSON (no secrets, ever). */
export interface AuditWrite {
  actorUserId: string | null;
  actorTokenId: string | null;
  actorLabel: string;
  action: string;
  target: string | null;
  before: Prisma.InputJsonValue | null;
  after: Prisma.InputJsonValue | null;
  requestId: string | null;
  sourceIp: string | null;
}

export interface AuditRow {
  id: bigint;
  at: Date;
  actorUserId: string | null;
  actorTokenId: string | null;
  actorLabel: string;
  action: string;
  target: string | null;
  before: Prisma.JsonValue;
  after: Prisma.JsonValue;
  requestId: string | null;
  sourceIp: string | null;
}

/**
 * The only code that knows how the audit log is stored. Append-only: no delete, and no update
 * but one — the failure count of a failed-login entry ({@link recordLoginFailure}).
 */
export class AuditRepository {
  constructor(private readonly db: DbClient) {}

  /**
   * A failed login, at most one entry per account and address per `windowMs`: the first failure
   * writes an entry (`after`: `{ failures: 1, last_at }`); later ones within the window add to
   * its `failures` and move `last_at`, so a password-guessing run cannot flood the log. Run it
   * inside a transaction (the advisory lock serializes failures of one account and address).
   */
  async recordLoginFailure(entry: AuditWrite, windowMs: number): Promise<void> {
    const email = entry.target ?? '';
    const ip = entry.sourceIp;
    await this.db
      .$executeRaw`SELECT pg_advisory_xact_lock(727277, hashtext(${`${email}|${ip ?? ''}`}::text))`;
    const now = new Date().toISOString();
    // The index (action, target, at) finds the window's entry.
    const updated = await this.db.$executeRaw`
      UPDATE audit_log
      SET after = jsonb_build_object(
        'failures', COALESCE((after->>'failures')::int, 1) + 1, 'last_at', ${now}::text)
      WHERE id = (
        SELECT id FROM audit_log
        WHERE action = 'auth.loginFailed' AND target = ${email}::text
          AND at > now() - make_interval(secs => ${windowMs / 1000}::float8)
          AND source_ip IS NOT DISTINCT FROM ${ip}::text
        ORDER BY at DESC, id DESC LIMIT 1)`;
    if (updated === 0) await this.record({ ...entry, after: { failures: 1, last_at: now } });
  }

  async record(entry: AuditWrite): Promise<void> {
    const { before, after, ...rest } = entry;
    // An absent field is SQL NULL; Prisma wants JSON null spelled out otherwise.
    await this.db.auditEntry.create({
      data: {
        ...rest,
        ...(before !== null ? { before } : {}),
        ...(after !== null ? { after } : {}),
      },
    });
  }

  /** Newest first, with ids below `beforeId` (the cursor), optionally one target or action(s). */
  async list(
    filter: { target?: string; action?: string | string[] },
    beforeId: bigint | undefined,
    take: number,
  ): Promise<AuditRow[]> {
    return this.db.auditEntry.findMany({
      where: {
        ...(filter.target !== undefined ? { target: filter.target } : {}),
        ...(typeof filter.action === 'string' ? { action: filter.action } : {}),
        ...(Array.isArray(filter.action) ? { action: { in: filter.action } } : {}),
        ...(beforeId !== undefined ? { id: { lt: beforeId } } : {}),
      },
      orderBy: { id: 'desc' },
      take,
    });
  }
}
