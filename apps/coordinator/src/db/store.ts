import { AuditRepository } from './audit-repository';
import { BlockPatternRepository } from './block-pattern-repository';
import { FleetRepository } from './fleet-repository';
import { HostPolicyRepository } from './host-policy-repository';
import type { Db, DbClient } from './prisma';
import { SeedRepository } from './seed-repository';
import { SessionRepository } from './session-repository';
import { SettingsRepository } from './settings-repository';
import { TokenRepository } from './token-repository';
import { UserRepository } from './user-repository';

/** Every repository, bound to the client or to one transaction. */
export interface Repos {
  seeds: SeedRepository;
  policies: HostPolicyRepository;
  /** URL block patterns of host policies. */
  blockPatterns: BlockPatternRepository;
  users: UserRepository;
  tokens: TokenRepository;
  sessions: SessionRepository;
  audit: AuditRepository;
  settings: SettingsRepository;
  fleet: FleetRepository;
}

function reposOf(db: DbClient): Repos {
  return {
    seeds: new SeedRepository(db),
    policies: new HostPolicyRepository(db),
    blockPatterns: new BlockPatternRepository(db),
    users: new UserRepository(db),
    tokens: new TokenRepository(db),
    sessions: new SessionRepository(db),
    audit: new AuditRepository(db),
    settings: new SettingsRepository(db),
    fleet: new FleetRepository(db),
  };
}

/**
 * Postgres through the repositories. `transaction` runs a change and its audit entry
 * atomically: either both are stored or neither.
 */
export class Store implements Repos {
  readonly seeds: SeedRepository;
  readonly policies: HostPolicyRepository;
  readonly blockPatterns: BlockPatternRepository;
  readonly users: UserRepository;
  readonly tokens: TokenRepository;
  readonly sessions: SessionRepository;
  readonly audit: AuditRepository;
  readonly settings: SettingsRepository;
  readonly fleet: FleetRepository;

  constructor(private readonly db: Db) {
    const r = reposOf(db);
    this.seeds = r.seeds;
    this.policies = r.policies;
    this.blockPatterns = r.blockPatterns;
    this.users = r.users;
    this.tokens = r.tokens;
    this.sessions = r.sessions;
    this.audit = r.audit;
    this.settings = r.settings;
    this.fleet = r.fleet;
  }

  /** Runs `fn` in one transaction (30 s at most: a seed list of 10,000 rows fits easily). */
  async transaction<T>(fn: (repos: Repos) => Promise<T>): Promise<T> {
    return this.db.$transaction((tx) => fn(reposOf(tx)), { timeout: 30_000, maxWait: 10_000 });
  }

  async disconnect(): Promise<void> {
    await this.db.$disconnect();
  }
}
