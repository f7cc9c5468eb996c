import type { Frontier } from '@crawler/frontier';
import { FrontierKeys } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';

/** The longest stall seen: how long, which host, and when it began (epoch ms). */
export interface Stall {
  ms: number;
  host: string;
  sinceMs: number;
}

/**
 * Samples the frontier straight from Redis (every `everyMs`) for hosts that have work and may be
 * fetched but are not being fetched: a host is stalled while it sits in its shard's ready set
 * (its class sets) with a score (next allowed time) at or before now — due, unleased — or while
 * the lease it holds belongs to an agent the bench killed (nobody works it until it expires). Each
 * host's stall runs from the first sample that saw it stalled to the last; the longest is kept.
 * Samples that fail (Redis restarting) are skipped: a stall spanning them counts whole.
 */
export class StallMonitor {
  private readonly keys: FrontierKeys;
  private readonly since = new Map<string, number>();
  private readonly killedLeases = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  longest: Stall = { ms: 0, host: '', sinceMs: 0 };
  samples = 0;
  failedSamples = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly frontier: Frontier,
    prefix: string,
    private readonly shards: number,
  ) {
    this.keys = new FrontierKeys(prefix);
  }

  /**
   * Notes the leases held by an agent that was just killed (their hosts stall until they are
   * reclaimed) and returns those hosts.
   */
  async noteKilledAgent(agentId: string): Promise<string[]> {
    const leases = await this.frontier.openLeases(100_000);
    const hosts: string[] = [];
    for (const l of leases)
      if (l.agentId === agentId) {
        this.killedLeases.add(l.leaseId);
        hosts.push(l.host);
      }
    return hosts;
  }

  start(everyMs = 1000): void {
    this.timer ??= setInterval(() => void this.sample(), everyMs);
  }

  /** Stops sampling; stalls still open count up to their last sample. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Hosts stalled at the last sample. */
  get stalledNow(): number {
    return this.since.size;
  }

  private async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const stalled = await withTimeout(this.stalledHosts(), 3000);
      const now = Date.now();
      this.samples++;
      for (const host of stalled) {
        const since = this.since.get(host) ?? now;
        this.since.set(host, since);
        if (now - since > this.longest.ms) this.longest = { ms: now - since, host, sinceMs: since };
      }
      for (const host of [...this.since.keys()]) if (!stalled.has(host)) this.since.delete(host);
    } catch {
      this.failedSamples++;
    } finally {
      this.busy = false;
    }
  }

  private async stalledHosts(): Promise<Set<string>> {
    const now = Date.now();
    const pipeline = this.redis.pipeline();
    // The ready set is one sorted set per host priority class.
    for (let s = 0; s < this.shards; s++)
      for (const key of this.keys.readyClasses(s)) pipeline.zrangebyscore(key, '-inf', now);
    const [replies, leases] = await Promise.all([
      pipeline.exec(),
      this.frontier.openLeases(100_000),
    ]);
    const stalled = new Set<string>();
    for (const [err, hosts] of replies ?? []) {
      if (err) throw err;
      for (const h of hosts as string[]) stalled.add(h);
    }
    for (const l of leases) if (this.killedLeases.has(l.leaseId)) stalled.add(l.host);
    return stalled;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
