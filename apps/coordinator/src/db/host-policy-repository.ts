import type { DbClient } from './prisma';

/** A policy of an exact host or of a pattern `*.example.com`; null fields are not set here. */
export interface HostPolicyRow {
  host: string;
  rateLimitRps: number | null;
  blocked: boolean | null;
  dailyBudget: number | null;
  allowlisted: boolean | null;
  maxConnections: number | null;
  updatedAt: Date;
}

export type HostPolicyFields = Partial<
  Pick<HostPolicyRow, 'rateLimitRps' | 'blocked' | 'dailyBudget' | 'allowlisted' | 'maxConnections'>
>;

const select = {
  host: true,
  rateLimitRps: true,
  blocked: true,
  dailyBudget: true,
  allowlisted: true,
  maxConnections: true,
  updatedAt: true,
} as const;

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

  async upsert(host: string, patch: HostPolicyFields): Promise<HostPolicyRow> {
    return this.db.hostPolicy.upsert({
      where: { host },
      create: { host, ...patch },
      update: patch,
      select,
    });
  }

  /** The patterns (`*.<suffix>`) among `suffixes`' rows. */
  async patternsFor(suffixes: string[]): Promise<HostPolicyRow[]> {
    return this.getMany(suffixes.map((s) => `*.${s}`));
  }

  /** Exact-host rows under a suffix (the suffix itself or `*.suffix`), patterns excluded. */
  async hostsUnder(suffix: string): Promise<HostPolicyRow[]> {
    return this.db.hostPolicy.findMany({
      where: {
        OR: [{ host: suffix }, { host: { endsWith: `.${suffix}` } }],
        NOT: { host: { startsWith: '*.' } },
      },
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
      {
        host: string;
        rate_limit_rps: number | null;
        blocked: boolean | null;
        daily_budget: number | null;
        allowlisted: boolean | null;
        max_connections: number | null;
        updated_at: Date;
      }[]
    >`SELECT host, rate_limit_rps, blocked, daily_budget, allowlisted, max_connections, updated_at
       FROM host_policies
       WHERE host ILIKE ${like} AND host COLLATE "C" > ${after ?? ''}
       ORDER BY host COLLATE "C" LIMIT ${take}`;
    return rows.map((r) => ({
      host: r.host,
      rateLimitRps: r.rate_limit_rps,
      blocked: r.blocked,
      dailyBudget: r.daily_budget,
      allowlisted: r.allowlisted,
      maxConnections: r.max_connections,
      updatedAt: r.updated_at,
    }));
  }
}
