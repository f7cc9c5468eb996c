import { Cluster } from 'ioredis';
import type { Frontier } from '@crawler/frontier';
import {
  hostPolicyNoticeSchema,
  safeParseJson,
  type HostPolicyNotice,
} from '@crawler/domain/messages';
import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';

type Policy = Omit<HostPolicyNotice, 'host'>;

/**
 * The policies of the hosts this agent is working, kept live: read once when a lease starts,
 * then updated by the frontier's policy channel (pub/sub) the moment an operator changes one.
 * Checking a policy before each request costs no Redis round trip, yet a block or a new rate
 * applies before the next request, even in the middle of a lease. After the subscription
 * reconnects (notices may have been missed), every tracked host is read again.
 */
export class LivePolicies {
  private readonly policies = new Map<string, Policy>();
  /**
   * The hosts tracked, with the notices received for each: a read that overlapped a notice must
   * not overwrite it.
   */
  private readonly noticeCount = new Map<string, number>();

  private constructor(
    private readonly frontier: Frontier,
    private readonly subscriber: RedisClient,
    private readonly log: Logger,
  ) {}

  static async start(redis: RedisClient, frontier: Frontier, log: Logger): Promise<LivePolicies> {
    // A connection of its own: a subscribed connection can do nothing else.
    const subscriber: RedisClient =
      redis instanceof Cluster ? redis.duplicate() : redis.duplicate();
    const live = new LivePolicies(frontier, subscriber, log);
    subscriber.on('message', (_channel: string, message: string) => live.onNotice(message));
    let first = true;
    subscriber.on('ready', () => {
      if (!first) void live.reloadAll();
      first = false;
    });
    await subscriber.subscribe(frontier.keys.policyChannel());
    return live;
  }

  /** Reads a host's policy (at the start of its lease) and keeps it live until `forget`. */
  async load(host: string): Promise<Policy> {
    // Tracked from now on: notices for the host count even while it is being read.
    const before = this.noticeCount.get(host) ?? 0;
    this.noticeCount.set(host, before);
    const read = await this.frontier.hostPolicy(host);
    // A notice that arrived during the read is newer than what was read.
    if ((this.noticeCount.get(host) ?? 0) === before) this.policies.set(host, read);
    return this.policies.get(host) ?? read;
  }

  /** The host's current policy; `load` must have run for it. */
  get(host: string): Policy | undefined {
    return this.policies.get(host);
  }

  /** Stops tracking a host (its lease ended). */
  forget(host: string): void {
    this.policies.delete(host);
    this.noticeCount.delete(host);
  }

  async close(): Promise<void> {
    await this.subscriber.quit();
  }

  private onNotice(message: string): void {
    const parsed = safeParseJson(hostPolicyNoticeSchema, message);
    if (!parsed?.success) {
      this.log.warn({ message: message.slice(0, 200) }, 'ignored a malformed policy notice');
      return;
    }
    const { host, blocked, gapMs } = parsed.data;
    const seen = this.noticeCount.get(host);
    if (seen === undefined) return; // not a host this agent is working
    this.noticeCount.set(host, seen + 1);
    this.policies.set(host, { blocked, gapMs });
  }

  private async reloadAll(): Promise<void> {
    for (const host of [...this.policies.keys()]) {
      try {
        await this.load(host);
      } catch (err) {
        this.log.warn({ err, host }, 'policy reload failed');
      }
    }
  }
}
