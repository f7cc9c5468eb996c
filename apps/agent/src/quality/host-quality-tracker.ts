import type { Redis, Cluster } from 'ioredis';
import type { Config } from '@crawler/shared/config';
import type { Frontier, FrontierKeys } from '@crawler/frontier';
import type { Logger } from '@crawler/shared/log';
import { HostQuality, type QualityLimits, type QualityRule } from '@crawler/shared/quality';
import type { TrapRule } from '@crawler/shared/traps';

/** A host's quality state is forgotten after this long without a lease (it is relearned). */
const STATE_TTL_S = 30 * 86_400;
/** How often the no-op parameters learned across hosts are read again. */
const NOOP_REFRESH_MS = 10_000;
/** The most common no-op parameter names read (a sorted set by how many hosts learned each). */
const NOOP_TOP = 1000;
/** Longer names are not shared across hosts (they are ids, not parameter names). */
const NOOP_NAME_MAX = 40;
/** Closed URL families that make a host trap-heavy: its priority class is lowered, once. */
export const TRAP_HEAVY_FAMILIES = 2;

/** The crawl-quality thresholds in effect. */
export function qualityLimits(config: Config): QualityLimits {
  return {
    familyCloseAfter: config.QUALITY_FAMILY_CLOSE_AFTER,
    nearBits: config.QUALITY_NEAR_BITS,
    maxPagerDepth: config.QUALITY_MAX_PAGER_DEPTH,
    maxQueryParams: config.QUALITY_MAX_QUERY_PARAMS,
    maxFacetCombos: config.QUALITY_MAX_FACET_COMBOS,
    soft404Bits: config.QUALITY_SOFT404_BITS,
    dupMinFetches: config.QUALITY_DUP_MIN_FETCHES,
    dupShare: config.QUALITY_DUP_SHARE,
    dupBudgetFactor: config.QUALITY_DUP_BUDGET_FACTOR,
  };
}

/** A rule's count in the shard's quality counters (`{p}:{s}:qc`). */
export type QualityCounter = QualityRule | TrapRule | 'blocked_pattern';

/**
 * The quality state of the hosts whose leases this agent holds: read from Redis when a lease
 * starts (one GET), used by every fetch and link of the lease, written back (one SET, only when
 * something was learned) before the lease completes — so the next agent to lease the host, and
 * the URL inspector, see it. Only the lease holder writes a host's state, so no write is lost.
 * Rule counts go to the shard's counters with the same write.
 */
export class HostQualityTracker {
  private readonly held = new Map<
    string,
    {
      shard: number;
      quality: HostQuality;
      counts: Map<QualityCounter, number>;
      /** No-op parameters the host had taught when its lease began. */
      noopBefore: Set<string>;
      /** Closed URL families when its lease began. */
      closedBefore: number;
    }
  >();
  private noopElsewhere = new Set<string>();
  private noopReadAt = 0;

  private readonly keys: FrontierKeys;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly frontier: Frontier,
    private readonly limits: QualityLimits,
    private readonly log: Logger,
  ) {
    this.keys = frontier.keys;
  }

  /** Reads a host's state as its lease starts. */
  async load(host: string, shard: number): Promise<HostQuality> {
    let raw: string | null = null;
    try {
      raw = await this.redis.get(this.keys.hostQuality(shard, host));
    } catch (err) {
      // Without its state a host is judged as a new one: nothing is lost but what it taught.
      this.log.warn({ err, host }, 'host quality state unreadable; starting afresh');
    }
    const quality = HostQuality.parse(raw, this.limits);
    this.held.set(host, {
      shard,
      quality,
      counts: new Map(),
      noopBefore: new Set(quality.noopParams()),
      closedBefore: quality.closedFamilies(),
    });
    if (Date.now() - this.noopReadAt > NOOP_REFRESH_MS) {
      this.noopReadAt = Date.now();
      void this.readNoopElsewhere();
    }
    return quality;
  }

  /**
   * Whether some host taught that this parameter name changes nothing: a prior for ordering
   * only — a host strips a parameter only once it learned so itself.
   */
  noopOnOtherHosts(name: string): boolean {
    return this.noopElsewhere.has(name);
  }

  private async readNoopElsewhere(): Promise<void> {
    try {
      const names = await this.redis.zrevrange(this.keys.noopParams(), 0, NOOP_TOP - 1);
      this.noopElsewhere = new Set(names);
    } catch (err) {
      this.log.debug({ err }, 'no-op parameters of other hosts unreadable');
    }
  }

  /** The state of a host whose lease is in hand. */
  get(host: string): HostQuality | undefined {
    return this.held.get(host)?.quality;
  }

  /** Counts URLs of a host kept out by a rule (dropped at enqueue or at lease). */
  count(host: string, rule: QualityCounter, n = 1): void {
    const h = this.held.get(host);
    if (!h || n === 0) return;
    h.counts.set(rule, (h.counts.get(rule) ?? 0) + n);
  }

  /** Writes back what the lease learned and counted; the host is no longer in hand. */
  async release(host: string): Promise<void> {
    const h = this.held.get(host);
    if (!h) return;
    this.held.delete(host);
    const multi = this.redis.multi();
    let ops = 0;
    if (h.quality.dirty) {
      multi.set(this.keys.hostQuality(h.shard, host), h.quality.serialize(), 'EX', STATE_TTL_S);
      ops++;
    }
    for (const [rule, n] of h.counts) {
      multi.hincrby(this.keys.qualityCounters(h.shard), rule, n);
      ops++;
    }
    const closed = h.quality.closedFamilies();
    const trapHeavy = h.closedBefore < TRAP_HEAVY_FAMILIES && closed >= TRAP_HEAVY_FAMILIES;
    const learned = h.quality
      .noopParams()
      .filter((name) => !h.noopBefore.has(name) && name.length <= NOOP_NAME_MAX);
    try {
      // The shard's keys share a slot; the cross-host name list has its own.
      await Promise.all([
        ops > 0 ? multi.exec() : Promise.resolve(),
        ...learned.map((name) => this.redis.zincrby(this.keys.noopParams(), 1, name)),
        // Hosts with real pages go first among those due.
        trapHeavy ? this.frontier.demoteHost(host, 'trap_heavy') : null,
      ]);
    } catch (err) {
      this.log.warn({ err, host }, 'host quality state not saved');
    }
  }
}
