import type { DbClient } from './prisma';

/** The stored crawl settings; a null field means "the environment's value". */
export interface CrawlSettingsRow {
  userAgentContact: string | null;
  recrawlShare: number | null;
  defaultRateLimitRps: number | null;
  maxDepth: number | null;
  updatedAt: Date;
}

export type CrawlSettingsPatch = Partial<Omit<CrawlSettingsRow, 'updatedAt'>>;

const select = {
  userAgentContact: true,
  recrawlShare: true,
  defaultRateLimitRps: true,
  maxDepth: true,
  updatedAt: true,
} as const;

/** The only code that knows how crawl settings are stored (one row, id 1). */
export class SettingsRepository {
  constructor(private readonly db: DbClient) {}

  async get(): Promise<CrawlSettingsRow | null> {
    return this.db.crawlSettings.findUnique({ where: { id: 1 }, select });
  }

  /** Inside a transaction: waits for other changes of the settings to commit, then reads them. */
  async getLocked(): Promise<CrawlSettingsRow | null> {
    await this.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('crawl_settings', 0))`;
    return this.get();
  }

  async upsert(patch: CrawlSettingsPatch): Promise<CrawlSettingsRow> {
    return this.db.crawlSettings.upsert({
      where: { id: 1 },
      create: { id: 1, ...patch },
      update: patch,
      select,
    });
  }
}
