import { performance } from 'node:perf_hooks';
import { setMaxListeners } from 'node:events';
import { HostQualityTracker } from './quality/host-quality-tracker';
import { qualityLimitsFrom } from '@crawler/domain/quality';
import { sleepUnlessStopped } from './lease/host-pacer';
import { SitemapState } from './parse/sitemap-state';
import { join } from 'node:path';
import type { Config } from '@crawler/domain/config';
import { openFrontier, type HostLease } from '@crawler/frontier';
import { checkRedisDurability, type RedisClient } from '@crawler/adapters/redis';
import { PAGES_INGEST_GROUP, telemetryStreamKey } from '@crawler/domain/messages';
import { WarcWriter } from '@crawler/adapters/warc';
import { zeroCounters, type AgentCounters, type AgentResources } from './agent-resources';
import { HttpClient } from './fetch/http-client';
import { readTrustedCa } from './fetch/trusted-ca';
import { NetworkGuard } from './fetch/network-guard';
import { HostResolver } from './fetch/resolve-host';
import { processLease } from './lease/process-lease';
import { LeaseRamp } from './lease/lease-ramp';
import { HostSlots } from './lease/host-slots';
import { RedisRoom } from './lease/redis-room';
import { shipLeftovers } from './archive/ship-leftovers';
import { agentHealth, logWarcHealth, type AgentHealth } from './archive/storage-health';
import { logFeedHold } from './feed/log-feed-hold';
import { LeaseKeeper } from './lease/lease-keeper';
import type { Logger } from '@crawler/adapters/log';
import { RobotsCache } from './robots/robots-cache';
import { agentsKey, robotsKey } from './keys';
import { TelemetrySink } from './telemetry/telemetry-sink';
import { AgentMetrics } from './metrics/agent-metrics';
import { createParsePool } from './parse/parse-pool';
import { robotsReaderFor } from './robots/robots-reader';
import { ContentIndex } from './dedupe/content-index';
import { LivePolicies } from './policy/live-policies';
import { LiveSettings } from './policy/live-settings';
import { LiveBlockRules } from './policy/live-block-rules';
import { EnqueueBatcher } from './frontier/enqueue-batcher';
import { LoopLag } from './fetch/loop-lag';
import { PagePublisher } from './feed/page-publisher';
import { objectTextStore } from './feed/object-text-store';
import { objectStoreFromSettings, WarcShipper } from '@crawler/adapters/storage';

/** How often the agent reads the crawl settings operators may have changed. */
const SETTINGS_REFRESH_MS = 2_000;
/** How often the agent checks whether the operators' block rules changed. */
const BLOCK_RULES_REFRESH_MS = 2_000;
/**
 * Most host leases asked for in one call: thousands at once (a fresh agent, a big frontier)
 * would be read, validated and started in one go, holding the event loop for long enough to
 * make every response in flight look slow to the pacer's 10× rule.
 */
const LEASE_BATCH = 100;

/**
 * How often an agent renews its leases: often enough that a lease always has a request's life
 * (FETCH_TOTAL_TIMEOUT_MS + 1 s) ahead of it between two renewals — half the TTL's room past that,
 * between 0.5 and 5 s.
 */
export function renewEveryMs(c: Config): number {
  const room = c.LEASE_TTL_MS - c.FETCH_TOTAL_TIMEOUT_MS - 1000;
  return Math.min(5000, Math.max(500, Math.floor(room / 2)));
}

/**
 * A stateless fetcher: leases hosts from the frontier, works each lease in its own task (one
 * connection per host), and completes it. Stop it at any time: in-flight fetches finish,
 * unfetched URLs go back to their hosts' queues and the WARC file is closed cleanly.
 */
export class CrawlAgent {
  private readonly active = new Map<string, Promise<void>>();
  private loop: Promise<void> | null = null;
  /** Hosts held at once: the loop's lag sets it within [AGENT_MIN_HOSTS, AGENT_MAX_HOSTS]. */
  private readonly slots: HostSlots;
  private heartbeat: NodeJS.Timeout | null = null;

  private constructor(
    private readonly r: AgentResources,
    private readonly redis: RedisClient,
    /** Prometheus metrics, derived from the telemetry rows this agent emits. */
    readonly metrics: AgentMetrics,
    /** Aborts `r.stop`. */
    private readonly stopper: AbortController,
    /** Aborts `r.cut`. */
    private readonly cutter: AbortController,
  ) {
    const { AGENT_MIN_HOSTS, AGENT_MAX_HOSTS } = r.config;
    const min = Math.min(AGENT_MIN_HOSTS, AGENT_MAX_HOSTS);
    // From the default maximum (256) or the minimum if higher; up from there as the loop allows.
    this.slots = new HostSlots(min, AGENT_MAX_HOSTS, Math.max(min, 256));
  }

  private get stopping(): boolean {
    return this.stopper.signal.aborted;
  }

  /** What this agent has done so far. */
  get counters(): AgentCounters {
    return this.r.counters;
  }

  static async create(
    config: Config,
    redis: RedisClient,
    log: Logger,
    opts: {
      warcDir?: string;
      /**
       * Consumer groups the feed keeps pages for even before they exist: the coordinator's
       * `ingest` (default). The one-shot crawl, which has no pages ingest, passes none.
       */
      feedGroups?: readonly string[];
    } = {},
  ): Promise<CrawlAgent> {
    // The frontier lives in Redis: refuse one that persists nothing or evicts keys.
    await checkRedisDurability(redis, { volatileOk: config.REDIS_VOLATILE_OK, log });
    const frontier = await openFrontier(config, redis);
    // Bounded heads need a coordinator's spill pump (its lock says one runs); without one, URLs
    // past a host's head wait in Redis.
    if (frontier.spill.enabled && !(await redis.exists(frontier.keys.spillLock())))
      log.warn(
        { headMax: config.FRONTIER_HEAD_MAX },
        'heads are bounded but no coordinator spills and refills them yet: URLs past a head wait in Redis until one runs',
      );
    const http = new HttpClient({
      userAgent: config.userAgent,
      connectTimeoutMs: config.FETCH_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: config.FETCH_FIRST_BYTE_TIMEOUT_MS,
      totalTimeoutMs: config.FETCH_TOTAL_TIMEOUT_MS,
      maxBodyBytes: config.FETCH_MAX_BODY_BYTES,
      minSpeedBytesPerS: config.FETCH_MIN_SPEED_BYTES_PER_S,
      minSpeedWindowMs: config.FETCH_MIN_SPEED_WINDOW_MS,
      bodyBudgetBytes: config.AGENT_BODY_BUDGET_BYTES,
      trustedCa: readTrustedCa(config.FETCH_CA_FILE),
      resolver: new HostResolver({
        minTtlMs: config.DNS_MIN_TTL_MS,
        negativeTtlMs: config.DNS_NEGATIVE_TTL_MS,
        ...(config.CRAWLER_DNS_MAP ? { dnsMapFile: config.CRAWLER_DNS_MAP } : {}),
      }),
      guard: new NetworkGuard(config.CRAWLER_NETWORK_ALLOW),
    });
    const day = new Date().toISOString().slice(0, 10);
    const warcDir = opts.warcDir ?? join(config.DATA_DIR, 'warc');
    const objects = objectStoreFromSettings({ ...config, dataDir: config.DATA_DIR });
    // Closed WARC files go to object storage (a no-op for the local default, whose root is
    // warcDir). Leftovers of earlier runs (any agent id, not a live writer's) ship too.
    const shipper = new WarcShipper({
      store: objects,
      dir: warcDir,
      keepLocal: config.WARC_KEEP_LOCAL,
      onShipped: (e) =>
        log.info({ key: e.key, bytes: e.bytes, attempts: e.attempts }, 'WARC shipped'),
      onShipFailed: (e) =>
        log.warn(
          { err: e.error, key: e.key, attempts: e.attempts, retryInMs: e.retryInMs },
          'WARC upload failed',
        ),
    });
    await shipLeftovers(shipper, warcDir, log);
    // A folder per run: an agent restarted on a fresh disk never reuses a file name in S3.
    const run = new Date().toISOString().slice(11, 19).replaceAll(':', '');
    const warc = await WarcWriter.open({
      dir: warcDir,
      prefix: `crawl/${day}/${config.agentId}/${run}-${process.pid}`,
      maxFileBytes: config.WARC_MAX_FILE_BYTES,
      maxFileAgeMs: config.WARC_MAX_FILE_AGE_MS,
      software: 'open-crawler/0.1.0',
      onFileClosed: shipper.onFileClosed,
      onHealthChange: logWarcHealth(log),
    });
    // The agent is built after its metrics, which read its active leases through this holder.
    const holder: { agent?: CrawlAgent } = {};
    const metrics = new AgentMetrics(
      config.agentId,
      () => holder.agent?.activeLeases ?? 0,
      () => holder.agent?.urlsInFlight ?? 0,
      () => holder.agent?.hostSlots ?? 0,
      () => (holder.agent?.feedHoldsLeasing ? 1 : 0),
      () => (holder.agent?.redisHoldsLeasing ? 1 : 0),
    );
    const telemetry = new TelemetrySink(
      redis,
      config.REDIS_PREFIX,
      (err) => log.warn({ err }, 'telemetry write failed; will retry'),
      (row) => metrics.observe(row),
    );
    const redisRoom = new RedisRoom(redis, {
      telemetryKey: telemetryStreamKey(config.REDIS_PREFIX),
      telemetryMaxBytes: config.TELEMETRY_MAX_BYTES,
      meanEntryBytes: () => telemetry.meanEntryBytes(),
      memoryHoldRatio: config.REDIS_MEMORY_HOLD_RATIO,
      log,
    });
    // Known before the first lease, as the feed's hold below.
    await redisRoom.start();
    const pages = new PagePublisher(
      redis,
      {
        prefix: config.REDIS_PREFIX,
        partitions: config.FEED_PARTITIONS,
        maxLen: config.FEED_MAX_LEN,
        inlineTextBytes: config.FEED_INLINE_TEXT_BYTES,
        maxBytes: config.FEED_MAX_BYTES,
        overflow: config.FEED_OVERFLOW,
        groups: opts.feedGroups ?? [PAGES_INGEST_GROUP],
        onHoldChange: logFeedHold(log),
      },
      objectTextStore(objects, join(config.DATA_DIR, 'tmp')),
      (err) => log.warn({ err }, 'feed write or trim failed; will retry'),
    );
    // Known before the first lease: an agent started while the feed is full waits with the rest.
    await pages.trim().catch((err: unknown) => log.warn({ err }, 'feed trim failed; will retry'));
    const counters: AgentCounters = zeroCounters();
    const settings = new LiveSettings({
      redis,
      prefix: config.REDIS_PREFIX,
      frontier,
      http,
      uaToken: config.CRAWLER_UA_TOKEN,
      maxDepth: config.CRAWLER_MAX_DEPTH,
      log,
    });
    await settings.start(SETTINGS_REFRESH_MS);
    const blockRules = new LiveBlockRules({ redis, prefix: config.REDIS_PREFIX, log });
    await blockRules.start(BLOCK_RULES_REFRESH_MS);
    const stopper = new AbortController();
    const cutter = new AbortController();
    // Every page request in flight listens for the cut (hundreds at once): not a leak.
    setMaxListeners(0, cutter.signal);
    const leases = new LeaseKeeper(frontier, [telemetry, pages], {
      requestMs: config.FETCH_TOTAL_TIMEOUT_MS,
      renewEveryMs: renewEveryMs(config),
      log,
    });
    leases.watch(redis);
    const quality = new HostQualityTracker(redis, frontier, qualityLimitsFrom(config), log);
    const policies = await LivePolicies.start(redis, frontier, log);
    // Threads start here, after the last step that can fail: a failed start leaves none running.
    const parsePool = createParsePool({
      threads: config.AGENT_PARSE_THREADS || undefined,
      ...(config.AGENT_PARSE_CPU_PROFILE_DIR
        ? { cpuProfileDir: config.AGENT_PARSE_CPU_PROFILE_DIR }
        : {}),
      onWorkerError: (err) => log.warn({ err }, 'parse worker failed'),
    });
    const robots = new RobotsCache(
      redis,
      (origin) => robotsKey(frontier, new URL(origin).hostname, origin),
      config.CRAWLER_UA_TOKEN,
      config.AGENT_ROBOTS_CACHE_BYTES,
      robotsReaderFor(parsePool),
    );
    metrics.watchMemory(robots, http.bodyBudget);
    holder.agent = new CrawlAgent(
      {
        config,
        frontier,
        links: new EnqueueBatcher(frontier, (n) => (counters.linksEnqueued += n), log, {
          blockRules,
          onBlocked: (u, match) => {
            counters.blockRefused++;
            // In the crawl's quality counters (GET /v1/stats) under the name the lease-time
            // check uses for a pattern's drop (quality/screen-urls.ts). A blocked host's links
            // are not a rule's drop there either: its queue waits until it is unblocked.
            if (match.kind === 'pattern') quality.count(u.host, 'blocked_pattern');
          },
        }),
        http,
        lag: new LoopLag(),
        robots,
        warc,
        shipper,
        content: new ContentIndex(redis, config.REDIS_PREFIX, config.DEDUPE_CONTENT_MAX_BODIES),
        telemetry,
        redisRoom,
        pages,
        policies,
        settings,
        blockRules,
        sitemaps: new SitemapState(redis, frontier),
        quality,
        leases,
        log,
        counters,
        parsePool,
        stop: stopper.signal,
        cut: cutter.signal,
      },
      redis,
      metrics,
      stopper,
      cutter,
    );
    return holder.agent;
  }

  get activeLeases(): number {
    return this.active.size;
  }

  /** Hosts the agent holds at most right now (HostSlots: its event loop's lag sets it). */
  get hostSlots(): number {
    return this.slots.current;
  }

  /**
   * True while the agent takes no new lease because pages a registered consumer group has not
   * read fill the feed to its bound (FEED_OVERFLOW=hold; page-publisher.ts).
   */
  get feedHoldsLeasing(): boolean {
    return this.r.pages.holdsLeasing;
  }

  /** True while Redis is nearly full or the telemetry backlog nears its bound (RedisRoom). */
  get redisHoldsLeasing(): boolean {
    return this.r.redisRoom.holdsLeasing;
  }

  /** What `/healthz` answers: not ok while WARC writes fail (then no new lease is taken). */
  health(): AgentHealth {
    return agentHealth(this.r.warc.health());
  }

  /** URLs a kill now could make the crawl fetch again (LeaseKeeper.inFlight). */
  get urlsInFlight(): number {
    return this.r.leases.inFlight;
  }

  /** The version of the operators' block rules the agent applies (null before the first read). */
  get blockRulesVersion(): number | null {
    return this.r.blockRules.version;
  }

  /**
   * Resolves once the links discovered so far are written to the frontier (a failed write is put
   * back and retried): from then on, what the frontier holds reflects the block rules the agent
   * had when each link was found.
   */
  linksWritten(): Promise<void> {
    return this.r.links.flush();
  }

  /** Starts leasing and fetching; returns at once. */
  start(): void {
    if (this.loop) return;
    this.r.leases.start();
    this.r.pages.start();
    this.loop = this.run();
    void this.beat();
    this.heartbeat = setInterval(() => void this.beat(), 5000);
  }

  /**
   * Drains: no new lease and no new request; in-flight fetches finish, for at most
   * AGENT_DRAIN_GRACE_MS, after which those still running are abandoned (their URLs not done);
   * every lease completes at once with its unstarted URLs back at the head of their hosts'
   * queues; links, telemetry and feed are flushed and the WARC file closes.
   */
  async stop(): Promise<void> {
    const t0 = performance.now();
    const since = () => Math.round(performance.now() - t0);
    const leases = this.active.size;
    this.stopper.abort();
    if (this.heartbeat) clearInterval(this.heartbeat);
    const grace = setTimeout(() => this.cutter.abort(), this.r.config.AGENT_DRAIN_GRACE_MS);
    await this.loop;
    await Promise.allSettled(this.active.values());
    clearTimeout(grace);
    const cut = this.cutter.signal.aborted;
    await this.r.leases.stop();
    const leasesMs = since();
    await this.r.parsePool.close();
    await Promise.all([
      this.r.telemetry.flush(),
      this.r.pages.flush(),
      this.r.links.flush(),
      this.r.quality.close(),
    ]);
    this.r.pages.stop();
    this.r.redisRoom.stop();
    const flushedMs = since();
    await this.r.warc.close();
    // Bounded: what is not uploaded by then stays local and ships at the next start.
    const { unshipped } = await this.r.shipper.close(30_000);
    if (unshipped.length > 0) this.r.log.warn({ unshipped }, 'WARC files left for the next start');
    const warcMs = since();
    await this.r.http.close();
    await this.r.policies.close();
    this.r.settings.stop();
    this.r.blockRules.stop();
    this.r.lag.stop();
    await this.redis.zrem(agentsKey(this.r.config.REDIS_PREFIX), this.r.config.agentId);
    this.r.log.info(
      { leases, cut, leasesMs, flushedMs, warcMs, totalMs: since() },
      'drained: leases completed, outputs flushed, WARC closed',
    );
  }

  private async run(): Promise<void> {
    const max = this.r.config.AGENT_MAX_HOSTS;
    const ramp = new LeaseRamp(this.r.config.AGENT_LEASE_RAMP_PER_S);
    const slots = this.slots;
    // Once a second, the event loop's utilization over it and the requests that waited for the
    // body budget set how many hosts to hold.
    let loop = performance.eventLoopUtilization();
    let waitedMs = this.r.http.bodyBudget?.stats.waitedMs ?? 0;
    const adjust = setInterval(() => {
      const now = performance.eventLoopUtilization();
      const waited = this.r.http.bodyBudget?.stats.waitedMs ?? 0;
      slots.adjust(
        {
          elu: performance.eventLoopUtilization(now, loop).utilization,
          budgetWaiters: (waited - waitedMs) / 1000,
        },
        this.active.size,
      );
      loop = now;
      waitedMs = waited;
    }, 1000);
    adjust.unref();
    let idleMs = 20;
    while (!this.stopping) {
      // No new host while WARC writes fail: its pages could not be archived (storage-health.ts);
      // nor while the feed is full of pages a consumer group has not read (page-publisher.ts),
      // nor while Redis is nearly full (lease/redis-room.ts).
      const room =
        this.r.warc.health().ok && !this.r.pages.holdsLeasing && !this.r.redisRoom.holdsLeasing
          ? Math.min(ramp.room(this.active.size, max), slots.room(this.active.size), LEASE_BATCH)
          : 0;
      let leases: HostLease[] = [];
      const askedAt = performance.now();
      if (room > 0) {
        try {
          leases = await this.r.frontier.lease(this.r.config.agentId, room);
        } catch (err) {
          this.r.log.error({ err }, 'lease failed; retrying');
        }
      }
      for (const lease of leases) this.track(lease, askedAt);
      // A full batch: there is likely more ready, ask again at once (after the I/O that is due).
      // Otherwise poll fast while work flows, slower when the frontier has nothing ready.
      if (leases.length === LEASE_BATCH) {
        idleMs = 20;
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      idleMs = leases.length > 0 ? 20 : Math.min(idleMs * 2, 250);
      await sleepUnlessStopped(room > 0 ? idleMs : 50, this.stopper.signal);
    }
    clearInterval(adjust);
  }

  private track(lease: HostLease, askedAt: number): void {
    this.r.leases.hold(lease, askedAt);
    const task = processLease(this.r, lease)
      .catch((err: unknown) => this.r.log.error({ err, host: lease.host }, 'lease failed'))
      .finally(() => {
        // Not renewed any more: a lease that did not complete expires within its TTL.
        this.r.leases.release(lease);
        this.active.delete(lease.leaseId);
      });
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
