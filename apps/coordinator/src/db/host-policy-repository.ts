import type { DbClient } from './prisma';

export interface HostPolicyRow {
  host: string;
  rateLimitRps: number | null;
  blocked: boolean;
  updatedAt: Date;
}

const select = { host: true, rateLimitRps: true, blocked: true, updatedAt: true } as const;

/** The only code that knows how host policies are stored. */
export class HostPolicyRepository {
  constructor(private readonly db: DbClient) {}

  async get(host: string): Promise<HostPolicyRow | null> {
    return this.db.hostPolicy.findUnique({ where: { host }, select });
  }

  /**
   * Inside a transaction: waits for other changes of this host to commit, then reads its
   * policy. A per-host advisory lock rather than SELECT … FOR UPDATE, because a host without a
   * policy has no row to lock; this way the `before` of an audit entry is always exact.
   */
  async getLocked(host: string): Promise<HostPolicyRow | null> {
    await this.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${host}, 0))`;
    return this.get(host);
  }

  async upsert(
    host: string,
    patch: { rateLimitRps?: number | null; blocked?: boolean },
  ): Promise<HostPolicyRow> {
    return this.db.hostPolicy.upsert({
      where: { host },
      create: { host, rateLimitRps: patch.rateLimitRps ?? null, blocked: patch.blocked ?? false },
      update: patch,
      select,
    });
  }

  async listAll(): Promise<HostPolicyRow[]> {
    return this.db.hostPolicy.findMany({ select, orderBy: { host: 'asc' } });
  }

  /** Policies of the given hosts. */
  async getMany(hosts: string[]): Promise<HostPolicyRow[]> {
    if (hosts.length === 0) return [];
    return this.db.hostPolicy.findMany({ where: { host: { in: hosts } }, select });
  }

  /**
   * Hosts after `after` whose name contains `q` (any case), at most `take`, in byte order
   * (COLLATE "C": the order ClickHouse sorts in, so the two lists merge into one page).
   */
  async search(q: string, after: string | undefined, take: number): Promise<HostPolicyRow[]> {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.db.$queryRaw<
      { host: string; rate_limit_rps: number | null; blocked: boolean; updated_at: Date }[]
    >`SELECT host, rate_limit_rps, blocked, updated_at FROM host_policies
       WHERE host ILIKE ${like} AND host COLLATE "C" > ${after ?? ''}
       ORDER BY host COLLATE "C" LIMIT ${take}`;
    return rows.map((r) => ({
      host: r.host,
      rateLimitRps: r.rate_limit_rps,
      blocked: r.blocked,
      updatedAt: r.updated_at,
    }));
  }
}
