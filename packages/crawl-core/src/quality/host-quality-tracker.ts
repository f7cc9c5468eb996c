import type { Redis, Cluster } from 'ioredis';
import { shardOf, type Frontier, type FrontierKeys, type UrlSource } from '@crawler/frontier';
import type { Logger } from '@crawler/adapters/log';
import {
  countNovelty,
  HostQuality,
  LinkMemory,
  type PageNovelty,
  type QualityLimits,
  type QualityRule,
} from '@crawler/domain/quality';
import type { TrapRule } from '@crawler/domain/traps';

/** A host's quality state is forgotten after this long without a lease (it is relearned). */
const STATE_TTL_S = 30 * 86_400;
/** How often the no-op parameters learned across hosts are read again. */
const NOOP_REFRESH_MS = 10_000;
/** The most common no-op parameter names read (a sorted set by how many hosts learned each). */
const NOOP_TOP = 1000;
/** Longer names are not shared across hosts (they are ids, not parameter names). */
const NOOP_NAME_MAX = 40;

/** A rule's count in the shard's quality counters (`{p}:{s}:qc`). */
export type QualityCounter = QualityRule | TrapRule | 'blocked_pattern';

/**
 * The quality state of the hosts whose leases this agent holds: read from Redis when a lease
 * starts (one GET), used by every fetch and link of the lease, written back (one SET, only when
 * something was learned) before the lease completes — so the next agent to lease the host, and
 * the URL inspector, see it. Only the lease holder writes a host's state, so no write is lost.
 * Rule counts go to the shard's counters with the same write.
 */
interface CachedHost {
  shard: number;
  quality: HostQuality;
  /** When it was read from Redis (ms). */
  readAt: number;
  /** When it was last written, and what the rules acted on then. */
  savedAt: number;
  savedSignature: string;
}

/** A host's state read less than this long ago is used again without reading it (ms). */
const REUSE_MS = 30_000;
/** A state whose rules did not change is written back at most this often (ms). */
const SAVE_EVERY_MS = 30_000;
/** Hosts whose state is kept in memory between leases (least recently leased forgotten first). */
const CACHED_HOSTS = 20_000;
/** How often rule counts go to the shards' counters (ms). */
const COUNTS_EVERY_MS = 2_000;
/**
 * Hosts whose recently linked URLs are remembered for the novelty rule (least recently leased
 * forgotten first): four times AGENT_MAX_HOSTS' default, so a host's memory outlives its lease
 * until its next ones. At most 1,024 small integers each (link-novelty.ts): ~20 MB were every
 * one full; most hosts link far fewer.
 */
const LINK_MEMORY_HOSTS = 1_024;

/**
 * The quality state of the hosts whose leases this agent holds. A host's state is read from
 * Redis when its lease starts, unless this agent read it less than 30 s ago (an agent usually
 * leases the same hosts again and again: one GET per host per 30 s, not per lease). It is written
 * back before the lease completes when what the rules act on changed (a family closed, a
 * parameter learned, the probe answered…), else at most every 30 s — so the next agent to lease
 * the host starts from it. Only the lease holder writes a host's state; an agent that leased a
 * host within the 30 s another agent also did may miss the other's newest observations, which
 * only delays what they teach. Rule counts go to the shards' counters every 2 s.
 */
export class HostQualityTracker {
  private readonly held = new Map<
    string,
    {
      cached: CachedHost;
      /** No-op parameters the host had taught when its lease began. */
      noopBefore: Set<string>;
      /** Closed URL families when its lease began. */
      closedBefore: number;
    }
  >();
  private readonly cache = new Map<string, CachedHost>();
  /** Recently linked URLs per host (in this agent only: a new agent starts with none). */
  private readonly linkMemories = new Map<string, LinkMemory>();
  /** Rule counts not yet written: shard → rule → count. */
  private pendingCounts = new Map<number, Map<QualityCounter, number>>();
  private readonly countsTimer: NodeJS.Timeout;
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
    this.countsTimer = setInterval(() => void this.flushCounts(), COUNTS_EVERY_MS);
    this.countsTimer.unref();
  }

  /** Reads a host's state as its lease starts (from memory when read less than 30 s ago). */
  async load(host: string, shard: number): Promise<HostQuality> {
    const now = Date.now();
    let cached = this.cache.get(host);
    if (!cached || now - cached.readAt > REUSE_MS) {
      let raw: string | null = null;
      try {
        raw = await this.redis.get(this.keys.hostQuality(shard, host));
      } catch (err) {
        // Without its state a host is judged as a new one: nothing is lost but what it taught.
        this.log.warn({ err, host }, 'host quality state unreadable; starting afresh');
      }
      const quality = HostQuality.parse(raw, this.limits);
      cached = {
        shard,
        quality,
        readAt: now,
        savedAt: now,
        savedSignature: quality.ruleSignature(),
      };
    }
    // Most recently leased last: the first entries are the ones to forget.
    this.cache.delete(host);
    this.cache.set(host, cached);
    while (this.cache.size > CACHED_HOSTS) this.cache.delete(this.cache.keys().next().value!);
    const memory = this.linkMemories.get(host);
    if (memory) {
      this.linkMemories.delete(host);
      this.linkMemories.set(host, memory);
    }
    const quality = cached.quality;
    this.held.set(host, {
      cached,
      noopBefore: new Set(quality.noopParams()),
      closedBefore: quality.closedFamilies(),
    });
    if (now - this.noopReadAt > NOOP_REFRESH_MS) {
      this.noopReadAt = now;
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

  /**
   * The links of a page of a host in hand that its host's pages did not link recently, inside and
   * outside the page's URL family (remembered from now on); null when the host is not in hand.
   * In memory, per agent: no Redis call per page (link-novelty.ts says what a miss costs). A page
   * queued as a seed, a sitemap entry or a re-crawl was found elsewhere than on its host's pages.
   */
  novelty(
    host: string,
    page: { url: string; urlFp: string; source: UrlSource },
    links: ReadonlyArray<{ url: string; urlFp: string; host: string }>,
  ): PageNovelty | null {
    if (!this.held.has(host) || this.limits.noveltyMinLinks === 0) return null;
    let memory = this.linkMemories.get(host);
    if (!memory) {
      memory = new LinkMemory();
      this.linkMemories.set(host, memory);
      if (this.linkMemories.size > LINK_MEMORY_HOSTS)
        this.linkMemories.delete(this.linkMemories.keys().next().value!);
    }
    const external = page.source !== 'link' && page.source !== 'redirect';
    return countNovelty(memory, { url: page.url, urlFp: page.urlFp, host, external }, links);
  }

  /** The state of a host whose lease is in hand. */
  get(host: string): HostQuality | undefined {
    return this.held.get(host)?.cached.quality;
  }

  /** Counts URLs of a host kept out by a rule (dropped at enqueue or at lease). */
  count(host: string, rule: QualityCounter, n = 1): void {
    if (n === 0) return;
    // A host not in hand (a link to another host dropped at enqueue) counts in its own shard.
    const shard = this.held.get(host)?.cached.shard ?? shardOf(host, this.frontier.shards);
    let counts = this.pendingCounts.get(shard);
    if (!counts) this.pendingCounts.set(shard, (counts = new Map<QualityCounter, number>()));
    counts.set(rule, (counts.get(rule) ?? 0) + n);
  }

  /** Writes back what the lease taught, when it matters or is due; the host is no longer in hand. */
  async release(host: string): Promise<void> {
    const h = this.held.get(host);
    if (!h) return;
    this.held.delete(host);
    const { cached } = h;
    const quality = cached.quality;
    const now = Date.now();
    const signature = quality.ruleSignature();
    const save =
      quality.dirty &&
      (signature !== cached.savedSignature || now - cached.savedAt > SAVE_EVERY_MS);
    const closed = quality.closedFamilies();
    const heavy = this.limits.trapHeavyFamilies;
    const trapHeavy = h.closedBefore < heavy && closed >= heavy;
    const learned = quality
      .noopParams()
      .filter((name) => !h.noopBefore.has(name) && name.length <= NOOP_NAME_MAX);
    if (save) {
      cached.savedAt = now;
      cached.savedSignature = signature;
      quality.markSaved();
    }
    try {
      await Promise.all([
        save
          ? this.redis.set(
              this.keys.hostQuality(cached.shard, host),
              quality.serialize(),
              'EX',
              STATE_TTL_S,
            )
          : null,
        ...learned.map((name) => this.redis.zincrby(this.keys.noopParams(), 1, name)),
        // Hosts with real pages go first among those due.
        trapHeavy ? this.frontier.demoteHost(host, 'trap_heavy') : null,
      ]);
    } catch (err) {
      this.log.warn({ err, host }, 'host quality state not saved');
    }
  }

  /** Writes the pending rule counts (every 2 s, and when the agent stops). */
  async flushCounts(): Promise<void> {
    const pending = this.pendingCounts;
    if (pending.size === 0) return;
    this.pendingCounts = new Map();
    try {
      await Promise.all(
        [...pending].map(([shard, counts]) => {
          const multi = this.redis.multi();
          for (const [rule, n] of counts) multi.hincrby(this.keys.qualityCounters(shard), rule, n);
          return multi.exec();
        }),
      );
    } catch (err) {
      this.log.warn({ err }, 'quality counters not written');
    }
  }

  /** Stops the counts timer after writing what is pending. */
  async close(): Promise<void> {
    clearInterval(this.countsTimer);
    await this.flushCounts();
  }
}
