import type { DbClient } from './prisma';

export interface TokenRow {
  id: string;
  userId: string;
  name: string;
  role: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  user: { email: string; role: string; disabled: boolean };
}

const select = {
  id: true,
  userId: true,
  name: true,
  role: true,
  prefix: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
  user: { select: { email: true, role: true, disabled: true } },
} as const;

/** The only code that knows how API tokens are stored. */
export class TokenRepository {
  constructor(private readonly db: DbClient) {}

  async findByHash(tokenHash: string): Promise<TokenRow | null> {
    return this.db.apiToken.findUnique({ where: { tokenHash }, select });
  }

  async get(id: string): Promise<TokenRow | null> {
    return this.db.apiToken.findUnique({ where: { id }, select });
  }

  async create(data: {
    userId: string;
    name: string;
    role: string;
    prefix: string;
    tokenHash: string;
    expiresAt: Date | null;
  }): Promise<TokenRow> {
    return this.db.apiToken.create({ data, select });
  }

  /** Sets revoked_at unless already set; returns the row as it is afterwards. */
  async revoke(id: string, at: Date): Promise<TokenRow> {
    await this.db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
    const row = await this.get(id);
    if (!row) throw new Error(`token ${id} vanished while being revoked`);
    return row;
  }

  /** Records use at most once per `everyMs`, so busy tokens do not write on every call. */
  async touch(id: string, now: Date, everyMs: number): Promise<void> {
    await this.db.apiToken.updateMany({
      where: {
        id,
        OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - everyMs) } }],
      },
      data: { lastUsedAt: now },
    });
  }

  /**
   * Newest first, after the cursor (created_at, id) of the previous page; one user's tokens
   * or everyone's.
   */
  async list(
    filter: { userId?: string },
    after: { createdAt: Date; id: string } | undefined,
    take: number,
  ): Promise<TokenRow[]> {
    return this.db.apiToken.findMany({
      where: {
        ...(filter.userId ? { userId: filter.userId } : {}),
        ...(after
          ? {
              OR: [
                { createdAt: { lt: after.createdAt } },
                { createdAt: after.createdAt, id: { lt: after.id } },
              ],
            }
          : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
      select,
    });
  }
}
