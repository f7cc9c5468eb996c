import type { DbClient } from './prisma';

export interface SessionRow {
  idHash: string;
  userId: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  user: { email: string; role: string; disabled: boolean };
}

const select = {
  idHash: true,
  userId: true,
  createdAt: true,
  lastSeenAt: true,
  expiresAt: true,
  revokedAt: true,
  user: { select: { email: true, role: true, disabled: true } },
} as const;

/** The only code that knows how console sessions are stored. */
export class SessionRepository {
  constructor(private readonly db: DbClient) {}

  async get(idHash: string): Promise<SessionRow | null> {
    return this.db.session.findUnique({ where: { idHash }, select });
  }

  async create(data: { idHash: string; userId: string; expiresAt: Date }): Promise<void> {
    await this.db.session.create({ data });
  }

  async revoke(idHash: string, at: Date): Promise<boolean> {
    const r = await this.db.session.updateMany({
      where: { idHash, revokedAt: null },
      data: { revokedAt: at },
    });
    return r.count > 0;
  }

  /** Ends every open session of a user (password changed, account disabled). */
  async revokeAllOf(userId: string, at: Date): Promise<number> {
    const r = await this.db.session.updateMany({
      where: { userId, revokedAt: null },
      data: { revokedAt: at },
    });
    return r.count;
  }

  /** Records activity at most once per `everyMs`. */
  async touch(idHash: string, now: Date, everyMs: number): Promise<void> {
    await this.db.session.updateMany({
      where: { idHash, lastSeenAt: { lt: new Date(now.getTime() - everyMs) } },
      data: { lastSeenAt: now },
    });
  }
}
