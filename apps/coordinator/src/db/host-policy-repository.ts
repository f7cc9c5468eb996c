import type { Db } from './prisma';

export interface HostPolicyRow {
  host: string;
  rateLimitRps: number | null;
  blocked: boolean;
  updatedAt: Date;
}

const select = { host: true, rateLimitRps: true, blocked: true, updatedAt: true } as const;

/** The only code that knows how host policies are stored. */
export class HostPolicyRepository {
  constructor(private readonly db: Db) {}

  async get(host: string): Promise<HostPolicyRow | null> {
    return this.db.hostPolicy.findUnique({ where: { host }, select });
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
}
