import { CrawlerError } from '@crawler/domain/errors';
import { Prisma } from './generated/client';
import type { DbClient } from './prisma';

export interface UserRow {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const select = {
  id: true,
  email: true,
  name: true,
  role: true,
  disabled: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** Raised when an email is taken (the unique index said so). */
export class EmailTakenError extends CrawlerError {
  readonly code = 'EMAIL_TAKEN';
  readonly retry = 'give_up';
}

/** The only code that knows how users are stored. */
export class UserRepository {
  constructor(private readonly db: DbClient) {}

  async get(id: string): Promise<UserRow | null> {
    return this.db.user.findUnique({ where: { id }, select });
  }

  /** The user and its password hash, for login. */
  async getForLogin(email: string): Promise<(UserRow & { passwordHash: string | null }) | null> {
    return this.db.user.findUnique({
      where: { email },
      select: { ...select, passwordHash: true },
    });
  }

  async create(data: {
    email: string;
    name: string;
    role: string;
    passwordHash: string | null;
  }): Promise<UserRow> {
    try {
      return await this.db.user.create({ data, select });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002')
        throw new EmailTakenError(data.email);
      throw err;
    }
  }

  async update(
    id: string,
    patch: { name?: string; role?: string; disabled?: boolean; passwordHash?: string },
  ): Promise<UserRow> {
    return this.db.user.update({ where: { id }, data: patch, select });
  }

  /**
   * Replaces a password hash by an equivalent one (the same password with stronger parameters)
   * unless it changed meanwhile; false then. Leaves updated_at alone: the account did not change.
   */
  async replacePasswordHash(id: string, oldHash: string, newHash: string): Promise<boolean> {
    const n = await this.db.$executeRaw`
      UPDATE users SET password_hash = ${newHash} WHERE id = ${id}::uuid AND password_hash = ${oldHash}`;
    return n === 1;
  }

  /** Users ordered by email, after `afterEmail` (the cursor). */
  async list(afterEmail: string | undefined, take: number): Promise<UserRow[]> {
    return this.db.user.findMany({
      where: afterEmail === undefined ? {} : { email: { gt: afterEmail } },
      orderBy: { email: 'asc' },
      take,
      select,
    });
  }

  async count(): Promise<number> {
    return this.db.user.count();
  }

  async countActiveAdmins(): Promise<number> {
    return this.db.user.count({ where: { role: 'admin', disabled: false } });
  }

  /** The earliest created active admin (owner of a bootstrap token). */
  async firstActiveAdmin(): Promise<UserRow | null> {
    return this.db.user.findFirst({
      where: { role: 'admin', disabled: false },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select,
    });
  }

  /**
   * Inside a transaction: serializes changes that must keep at least one active admin (two
   * admins demoting each other at once must not both succeed) and the start-up bootstrap.
   */
  async lockAccounts(): Promise<void> {
    await this.db.$executeRaw`SELECT pg_advisory_xact_lock(727275)`;
  }
}
