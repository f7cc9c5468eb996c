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

/** The only code that knows how the audit log is stored. Append-only: no update, no delete. */
export class AuditRepository {
  constructor(private readonly db: DbClient) {}

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

  /** Newest first, with ids below `beforeId` (the cursor), optionally one target or action. */
  async list(
    filter: { target?: string; action?: string },
    beforeId: bigint | undefined,
    take: number,
  ): Promise<AuditRow[]> {
    return this.db.auditEntry.findMany({
      where: {
        ...(filter.target !== undefined ? { target: filter.target } : {}),
        ...(filter.action !== undefined ? { action: filter.action } : {}),
        ...(beforeId !== undefined ? { id: { lt: beforeId } } : {}),
      },
      orderBy: { id: 'desc' },
      take,
    });
  }
}
