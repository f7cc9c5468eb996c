import type { DbClient } from './prisma';

export interface NewSeed {
  url: string;
  urlFp: string;
  host: string;
  priority: number;
  source: string;
}

/** The only code that knows how seeds are stored. */
export class SeedRepository {
  constructor(private readonly db: DbClient) {}

  /** Inserts seeds; a url_fp already present is kept as it is. Returns how many were new. */
  async insertMany(seeds: NewSeed[]): Promise<number> {
    if (seeds.length === 0) return 0;
    const r = await this.db.seed.createMany({ data: seeds, skipDuplicates: true });
    return r.count;
  }

  async markEnqueued(urlFps: string[]): Promise<void> {
    if (urlFps.length === 0) return;
    await this.db.seed.updateMany({
      where: { urlFp: { in: urlFps }, enqueuedAt: null },
      data: { enqueuedAt: new Date() },
    });
  }

  /** Seeds that never reached the frontier (e.g. Redis was down), oldest first. */
  async listNotEnqueued(limit: number): Promise<NewSeed[]> {
    return this.db.seed.findMany({
      where: { enqueuedAt: null },
      orderBy: { id: 'asc' },
      take: limit,
      select: { url: true, urlFp: true, host: true, priority: true, source: true },
    });
  }

  async count(): Promise<number> {
    return this.db.seed.count();
  }
}
