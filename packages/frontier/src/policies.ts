import { z } from 'zod';
import { scanKeys } from '@crawler/adapters/redis';
import { DISCOVERED_HOST_CLASS, FrontierInputError, SITE_ID_LENGTH } from './priority';
import { allShards, type FrontierResources } from './resources';
import { waitOutShardMove } from './script-replies';
import type { HostPolicyNotice, HostPriority, SuffixPolicy } from './types';

const demoteReply = z.tuple([z.number(), z.number()]);

/** A host's policy as setHostPolicy writes it. */
export interface HostPolicyInput {
  gapMs: number | null;
  blocked: boolean;
  dailyBudget?: number | null;
  allowlisted?: boolean;
  /** Connections the agent may open to the host at once (default 1). */
  maxConnections?: number | null;
}

/**
 * What the frontier does for a host besides queueing it: its policy (gap, block, budget,
 * connections; setHostPolicy-2.lua, announced on the policy channel), domain-suffix policies,
 * its priority class (demoteHost-2.lua), and the crawl-wide defaults applied live.
 */
export class FrontierPolicies {
  constructor(private readonly r: FrontierResources) {}

  /**
   * Writes a host's policy into its shard (the next lease of the host uses it) and announces it
   * on the policy channel, so agents working the host apply it before their next request.
   */
  async setHostPolicy(host: string, policy: HostPolicyInput): Promise<void> {
    const s = this.r.shardOf(host);
    const k = this.r.keys;
    await waitOutShardMove(() =>
      this.r.cmd.setHostPolicy(
        k.ready(s),
        k.stats(s),
        k.shard(s),
        host,
        policy.gapMs === null ? '' : String(Math.round(policy.gapMs)),
        policy.blocked ? '1' : '0',
        policy.dailyBudget == null ? '' : String(policy.dailyBudget),
        policy.allowlisted ? '1' : '0',
        policy.maxConnections == null ? '' : String(policy.maxConnections),
      ),
    );
    const live: HostPolicyNotice = {
      host,
      blocked: policy.blocked,
      gapMs: policy.gapMs ?? this.r.config.defaultGapMs,
    };
    await this.r.redis.publish(k.policyChannel(), JSON.stringify(live));
  }

  /**
   * Lowers a host's priority class by `levels` (default 1; negative lifts earlier demotions;
   * the total stays within 0–9 classes), e.g. when crawl-quality rules find the host trap-heavy.
   * Due hosts of a higher class are leased before it; its queue, politeness and lease are
   * untouched. `reason` (e.g. `trap_heavy`) is kept as the host's `demote_reason`.
   */
  async demoteHost(
    host: string,
    reason: string,
    levels = 1,
  ): Promise<{ hostClass: number; demoted: number }> {
    if (!Number.isInteger(levels))
      throw new FrontierInputError(`demoteHost ${host}: levels ${levels} is not an integer`);
    const s = this.r.shardOf(host);
    const k = this.r.keys;
    const [hostClass, demoted] = demoteReply.parse(
      await waitOutShardMove(() =>
        this.r.cmd.demoteHost(k.ready(s), k.stats(s), k.shard(s), host, levels, reason),
      ),
    );
    return { hostClass, demoted };
  }

  /** A host's priority class and what made it (a host the frontier does not know: the default). */
  async hostPriority(host: string): Promise<HostPriority> {
    const [prio, seed, sites, demoted, reason] = await this.r.redis.hmget(
      this.r.keys.host(this.r.shardOf(host), host),
      'prio',
      'seed_prio',
      'in_sites',
      'demoted',
      'demote_reason',
    );
    return {
      hostClass: prio === null ? DISCOVERED_HOST_CLASS : Number(prio),
      seedPriority: seed === null ? null : Number(seed),
      inLinkSites: Math.floor((sites ?? '').length / SITE_ID_LENGTH),
      demoted: Number(demoted ?? 0),
      demoteReason: reason ?? null,
    };
  }

  /**
   * The host's live policy: blocked, and its gap in ms (the default when it has none). Agents read
   * it before every request, so a block or a rate change applies at once, even mid-lease.
   */
  async hostPolicy(host: string): Promise<Omit<HostPolicyNotice, 'host'>> {
    const [blocked, gap] = await this.r.redis.hmget(
      this.r.keys.host(this.r.shardOf(host), host),
      'blocked',
      'gap_ms',
    );
    return { blocked: blocked === '1', gapMs: gap ? Number(gap) : this.r.config.defaultGapMs };
  }

  /**
   * Changes crawl-wide defaults from the next call on (operators' settings, applied live): the
   * gap of hosts without a rate limit of their own and the re-crawl share of leases.
   */
  setDefaults(d: { defaultGapMs?: number; recrawlShare?: number }): void {
    if (d.defaultGapMs !== undefined) this.r.config.defaultGapMs = d.defaultGapMs;
    if (d.recrawlShare !== undefined) this.r.config.recrawlShare = d.recrawlShare;
  }

  /** The crawl-wide defaults in effect. */
  get defaults(): { defaultGapMs: number; recrawlShare: number } {
    return { defaultGapMs: this.r.config.defaultGapMs, recrawlShare: this.r.config.recrawlShare };
  }

  /**
   * Copies a domain-suffix policy into every shard (null removes it), where hosts first seen
   * from now on take it (enqueueUrls). Hosts already known are rewritten by the caller through
   * setHostPolicy: find them with knownHostsUnder().
   */
  async setSuffixPolicy(suffix: string, policy: SuffixPolicy | null): Promise<void> {
    const packed =
      policy &&
      [
        policy.gapMs == null ? '' : String(Math.round(policy.gapMs)),
        policy.blocked == null ? '' : policy.blocked ? '1' : '0',
        policy.dailyBudget == null ? '' : String(policy.dailyBudget),
        policy.allowlisted == null ? '' : policy.allowlisted ? '1' : '0',
        policy.maxConnections == null ? '' : String(policy.maxConnections),
      ].join('|');
    const k = this.r.keys;
    await Promise.all(
      allShards(this.r).map((s) =>
        packed === null
          ? this.r.redis.hdel(k.suffixPolicies(s), suffix)
          : this.r.redis.hset(k.suffixPolicies(s), suffix, packed),
      ),
    );
  }

  /** Hosts the frontier knows that are `suffix` or end in `.suffix` (SCAN, never KEYS). */
  async knownHostsUnder(suffix: string): Promise<string[]> {
    const hosts: string[] = [];
    const k = this.r.keys;
    await scanKeys(this.r.redis, k.hostPattern(`*${suffix}`), (keys) => {
      for (const key of keys) {
        const host = k.hostOfKey(key);
        if (host === suffix || host.endsWith(`.${suffix}`)) hosts.push(host);
      }
    });
    return hosts;
  }
}
