import type { DbClient } from './prisma';

/** A URL block pattern of a policy row (an exact host or `*.example.com`). */
export interface BlockPatternRow {
  host: string;
  pattern: string;
  createdAt: Date;
}

const select = { host: true, pattern: true, createdAt: true } as const;

/** The only code that knows how URL block patterns are stored. */
export class BlockPatternRepository {
  constructor(private readonly db: DbClient) {}

  /**
   * Inside a transaction: waits for other changes of the crawl's block rules (and for their
   * publication) to commit. Not a host name: host names have no `_`.
   */
  async lockRuleSet(): Promise<void> {
    await this.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('block_rules', 0))`;
  }

  /** The patterns of one policy row, oldest first. */
  async listFor(host: string): Promise<BlockPatternRow[]> {
    return this.db.hostBlockPattern.findMany({
      where: { host },
      select,
      orderBy: [{ createdAt: 'asc' }, { pattern: 'asc' }],
    });
  }

  /** The patterns of several policy rows. */
  async listForMany(hosts: string[]): Promise<BlockPatternRow[]> {
    if (hosts.length === 0) return [];
    return this.db.hostBlockPattern.findMany({
      where: { host: { in: hosts } },
      select,
      orderBy: [{ host: 'asc' }, { createdAt: 'asc' }, { pattern: 'asc' }],
    });
  }

  /** Every pattern of the crawl, by host. */
  async listAll(): Promise<BlockPatternRow[]> {
    return this.db.hostBlockPattern.findMany({
      select,
      orderBy: [{ host: 'asc' }, { createdAt: 'asc' }, { pattern: 'asc' }],
    });
  }

  async countAll(): Promise<number> {
    return this.db.hostBlockPattern.count();
  }

  /** Adds a pattern to an existing policy row; false when it was there already. */
  async add(host: string, pattern: string): Promise<boolean> {
    const r = await this.db.hostBlockPattern.createMany({
      data: [{ host, pattern }],
      skipDuplicates: true,
    });
    return r.count === 1;
  }

  /** Removes a pattern; false when it was not there. */
  async remove(host: string, pattern: string): Promise<boolean> {
    const r = await this.db.hostBlockPattern.deleteMany({ where: { host, pattern } });
    return r.count === 1;
  }
}
