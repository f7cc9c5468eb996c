import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import type { Config } from '@crawler/shared/config';
import { openFrontier, type HostLease } from '@crawler/frontier';
import type { RedisClient } from '@crawler/shared/redis';
import { WarcWriter } from '@crawler/shared/warc';
import type { AgentCounters, AgentResources } from './agent-resources';
import { HttpClient } from './fetch/http-client';
import { NetworkGuard } from './fetch/network-guard';
import { HostResolver } from './fetch/resolve-host';
import { processLease } from './lease/process-lease';
import type { Logger } from '@crawler/shared/log';
import { RobotsCache } from './robots/robots-cache';
import { TelemetrySink } from './telemetry/telemetry-sink';
import { AgentMetrics } from './metrics/agent-metrics';
import { createParsePool } from './parse/parse-pool';

/** Key of the agents' heartbeat set (agent id → last beat, ms). */
export function agentsKey(prefix: string): string {
  return `${prefix}:agents`;
}

/**
 * A stateless fetcher: leases hosts from the frontier, works each lease in its own task (one
 * connection per host), and completes it. Stop it at any time: in-flight fetches finish,
 * unfetched URLs go back to their hosts' queues and the WARC file is closed cleanly.
 */
export class CrawlAgent {
  private readonly active = new Map<string, Promise<void>>();
  private stopping = false;
  private loop: Promise<void> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  private constructor(
    private readonly r: AgentResources,
    private readonly redis: RedisClient,
    /** Prometheus metrics, derived from the telemetry rows this agent emits. */
    readonly metrics: AgentMetrics,
  ) {}

  /** What this agent has done so far. */
  get counters(): AgentCounters {
    return this.r.counters;
  }

  static async create(
    config: Config,
    redis: RedisClient,
    log: Logger,
    opts: { warcDir?: string } = {},
  ): Promise<CrawlAgent> {
    const frontier = await openFrontier(config, redis);
    const http = new HttpClient({
      userAgent: config.userAgent,
      connectTimeoutMs: config.FETCH_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: config.FETCH_FIRST_BYTE_TIMEOUT_MS,
      totalTimeoutMs: config.FETCH_TOTAL_TIMEOUT_MS,
      maxBodyBytes: config.FETCH_MAX_BODY_BYTES,
      resolver: new HostResolver(
        config.CRAWLER_DNS_MAP ? { dnsMapFile: config.CRAWLER_DNS_MAP } : {},
      ),
      guard: new NetworkGuard(config.CRAWLER_NETWORK_ALLOW),
    });
    const robots = new RobotsCache(
      redis,
      (origin) =>
        `${frontier.keys.shard(frontier.shardOf(new URL(origin).hostname))}robots:${origin}`,
      config.CRAWLER_UA_TOKEN,
    );
    const day = new Date().toISOString().slice(0, 10);
    const warc = await WarcWriter.open({
      dir: opts.warcDir ?? join(config.DATA_DIR, 'warc'),
      prefix: `crawl/${day}/${config.agentId}`,
      maxFileBytes: config.WARC_MAX_FILE_BYTES,
      software: 'open-crawler/0.1.0',
    });
    // The agent is built after its metrics, which read its active leases through this holder.
    const holder: { agent?: CrawlAgent } = {};
    const metrics = new AgentMetrics(config.agentId, () => holder.agent?.activeLeases ?? 0);
    const telemetry = new TelemetrySink(
      redis,
      config.REDIS_PREFIX,
      (err) => log.warn({ err }, 'telemetry write failed; will retry'),
      (row) => metrics.observe(row),
    );
    const counters: AgentCounters = {
      fetched: 0,
      errors: 0,
      bytes: 0,
      robotsDenied: 0,
      linksEnqueued: 0,
    };
    holder.agent = new CrawlAgent(
      {
        config,
        frontier,
        http,
        robots,
        warc,
        telemetry,
        log,
        counters,
        parsePool: createParsePool({
          threads: config.AGENT_PARSE_THREADS || undefined,
          onWorkerError: (err) => log.warn({ err }, 'parse worker failed'),
        }),
      },
      redis,
      metrics,
    );
    return holder.agent;
  }

  get activeLeases(): number {
    return this.active.size;
  }

  /** Starts leasing and fetching; returns at once. */
  start(): void {
    if (this.loop) return;
    this.loop = this.run();
    void this.beat();
    this.heartbeat = setInterval(() => void this.beat(), 5000);
  }

  /** Drains: no new leases, in-flight fetches finish, leases complete, WARC closes. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.loop;
    await Promise.allSettled(this.active.values());
    await this.r.parsePool.close();
    await this.r.telemetry.flush();
    await this.r.warc.close();
    await this.r.http.close();
    await this.redis.zrem(agentsKey(this.r.config.REDIS_PREFIX), this.r.config.agentId);
  }

  private async run(): Promise<void> {
    const max = this.r.config.AGENT_MAX_HOSTS;
    let idleMs = 20;
    while (!this.stopping) {
      const room = max - this.active.size;
      let leases: HostLease[] = [];
      if (room > 0) {
        try {
          leases = await this.r.frontier.lease(this.r.config.agentId, room);
        } catch (err) {
          this.r.log.error({ err }, 'lease failed; retrying');
        }
      }
      for (const lease of leases) this.track(lease);
      // Poll fast while work flows, slower when the frontier has nothing ready.
      idleMs = leases.length > 0 ? 20 : Math.min(idleMs * 2, 250);
      await sleep(room > 0 ? idleMs : 50);
    }
  }

  private track(lease: HostLease): void {
    const task = processLease(this.r, lease, () => this.stopping)
      .catch((err: unknown) => this.r.log.error({ err, host: lease.host }, 'lease failed'))
      .finally(() => this.active.delete(lease.leaseId));
    this.active.set(lease.leaseId, task);
  }

  private async beat(): Promise<void> {
    try {
      await this.redis.zadd(
        agentsKey(this.r.config.REDIS_PREFIX),
        Date.now(),
        this.r.config.agentId,
      );
    } catch (err) {
      this.r.log.warn({ err }, 'heartbeat failed');
    }
  }
}
