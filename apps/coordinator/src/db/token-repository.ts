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
  /** The token it was created with (null: made in a session or at start-up). */
  parentTokenId: string | null;
  /** Whether it was created in a console session (it ends when that user's password changes). */
  sessionIdHash: string | null;
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
  parentTokenId: true,
  sessionIdHash: true,
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
    parentTokenId?: string | null;
    /** SHA-256 of the session id of the console session it is created in. */
    sessionIdHash?: string | null;
  }): Promise<TokenRow> {
    return this.db.apiToken.create({ data, select });
  }

  /**
   * Inside a transaction: serializes creating a token with a token and revoking tokens, so a
   * token cannot be created with a parent whose revocation is committing at the same moment
   * (the revocation would miss it, and the new token would outlive its parent).
   */
  async lockLineage(): Promise<void> {
    await this.db.$executeRaw`SELECT pg_advisory_xact_lock(727276)`;
  }

  /** Every token created with `id`, with those, and so on (not `id` itself), oldest first. */
  async descendants(id: string): Promise<TokenRow[]> {
    const ids = await this.db.$queryRaw<Array<{ id: string }>>`
      WITH RECURSIVE tree AS (
        SELECT id FROM api_tokens WHERE parent_token_id = ${id}::uuid
        UNION
        SELECT t.id FROM api_tokens t JOIN tree ON t.parent_token_id = tree.id)
      SELECT id::text AS id FROM tree`;
    if (ids.length === 0) return [];
    return this.db.apiToken.findMany({
      where: { id: { in: ids.map((r) => r.id) } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select,
    });
  }

  /**
   * The tokens created in any session of `userId` (open or ended), and every token created with
   * those, transitively, that are not revoked yet; oldest first.
   */
  async mintedInSessionsOf(userId: string): Promise<TokenRow[]> {
    const ids = await this.db.$queryRaw<Array<{ id: string }>>`
      WITH RECURSIVE tree AS (
        SELECT t.id FROM api_tokens t JOIN sessions s ON s.id_hash = t.session_id_hash
          WHERE s.user_id = ${userId}::uuid
        UNION
        SELECT t.id FROM api_tokens t JOIN tree ON t.parent_token_id = tree.id)
      SELECT id::text AS id FROM tree`;
    if (ids.length === 0) return [];
    return this.db.apiToken.findMany({
      where: { id: { in: ids.map((r) => r.id) }, revokedAt: null },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select,
    });
  }

  /** Sets revoked_at of these tokens unless already set. */
  async revokeMany(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.apiToken.updateMany({
      where: { id: { in: ids }, revokedAt: null },
      data: { revokedAt: at },
    });
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
