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

  /** Every seed by id after `afterId` (enqueued or not), for a frontier rebuild. */
  async pageAll(
    afterId: bigint | undefined,
    take: number,
  ): Promise<Array<NewSeed & { id: bigint }>> {
    return this.db.seed.findMany({
      where: afterId !== undefined ? { id: { gt: afterId } } : {},
      orderBy: { id: 'asc' },
      take,
      select: { id: true, url: true, urlFp: true, host: true, priority: true, source: true },
    });
  }

  async count(): Promise<number> {
    return this.db.seed.count();
  }

  /** Puts stored seeds (by url_fp) in the named list, created if new. Returns how many joined. */
  async addToList(name: string, urlFps: string[]): Promise<number> {
    const list = await this.db.seedList.upsert({
      where: { name },
      create: { name },
      update: {},
      select: { id: true },
    });
    return this.db.$executeRaw`
      INSERT INTO seed_list_members (list_id, seed_id)
      SELECT ${list.id}, id FROM seeds WHERE url_fp = ANY(${urlFps}::text[])
      ON CONFLICT DO NOTHING`;
  }

  /** Seed lists after `after` by name, with their sizes. */
  async lists(after: string | undefined, take: number): Promise<SeedListRow[]> {
    const rows = await this.db.$queryRaw<{ name: string; created_at: Date; seeds: bigint }[]>`
      SELECT l.name, l.created_at, count(m.seed_id) AS seeds
        FROM seed_lists l LEFT JOIN seed_list_members m ON m.list_id = l.id
       WHERE l.name COLLATE "C" > ${after ?? ''}
       GROUP BY l.id ORDER BY l.name COLLATE "C" LIMIT ${take}`;
    return rows.map((r) => ({ name: r.name, createdAt: r.created_at, seeds: Number(r.seeds) }));
  }

  /** Seeds by id after `afterId`, of one list or all, with the lists each is in. */
  async page(opts: { list?: string; afterId?: bigint; take: number }): Promise<SeedRow[]> {
    const rows = await this.db.seed.findMany({
      where: {
        ...(opts.afterId !== undefined ? { id: { gt: opts.afterId } } : {}),
        ...(opts.list !== undefined ? { lists: { some: { list: { name: opts.list } } } } : {}),
      },
      orderBy: { id: 'asc' },
      take: opts.take,
      select: {
        id: true,
        url: true,
        host: true,
        priority: true,
        source: true,
        createdAt: true,
        enqueuedAt: true,
        lists: { select: { list: { select: { name: true } } } },
      },
    });
    return rows.map((r) => ({ ...r, lists: r.lists.map((m) => m.list.name).sort() }));
  }
}

export interface SeedListRow {
  name: string;
  createdAt: Date;
  seeds: number;
}

export interface SeedRow {
  id: bigint;
  url: string;
  host: string;
  priority: number;
  source: string;
  createdAt: Date;
  enqueuedAt: Date | null;
  lists: string[];
}
