import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TelemetryRow } from '@crawler/domain/messages';
import type { BodyBudget } from '../fetch/body-budget';

/**
 * The agent's Prometheus metrics. Every fetch passes through one place — its telemetry row — so
 * the metrics are derived from the rows as they are emitted, and cannot disagree with them.
 */
export class AgentMetrics {
  readonly registry = new Registry();
  private readonly fetches: Counter<'status_class'>;
  private readonly errors: Counter<'code'>;
  private readonly bytes: Counter;
  private readonly fetchSeconds: Histogram;

  /**
   * @param activeLeases reads the number of host leases being worked right now
   * @param urlsInFlight reads the URLs a kill now could make the crawl fetch again (requests in
   *   flight, and done URLs not yet recorded in the frontier)
   * @param hostSlots reads how many host leases the agent may hold now (HostSlots)
   * @param feedHolding reads 1 while the agent takes no new lease because the feed is full of
   *   pages a consumer group has not read, else 0
   * @param redisHolding reads 1 while the agent takes no new lease because Redis is nearly full
   *   or the telemetry backlog nears TELEMETRY_MAX_BYTES (RedisRoom), else 0
   */
  constructor(
    agentId: string,
    activeLeases: () => number,
    urlsInFlight: () => number = () => 0,
    hostSlots: () => number = () => 0,
    feedHolding: () => number = () => 0,
    redisHolding: () => number = () => 0,
  ) {
    this.registry.setDefaultLabels({ agent: agentId });
    collectDefaultMetrics({ register: this.registry });
    this.fetches = new Counter({
      name: 'crawler_fetches_total',
      help: 'HTTP fetches by status class (robots-denied URLs are not fetches)',
      labelNames: ['status_class'],
      registers: [this.registry],
    });
    this.errors = new Counter({
      name: 'crawler_fetch_errors_total',
      help: 'Fetches that ended with an error code',
      labelNames: ['code'],
      registers: [this.registry],
    });
    this.bytes = new Counter({
      name: 'crawler_fetched_bytes_total',
      help: 'Body bytes received, after decompression',
      registers: [this.registry],
    });
    this.fetchSeconds = new Histogram({
      name: 'crawler_fetch_duration_seconds',
      help: 'Request start to last body byte',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.readGauge('crawler_active_leases', 'Host leases being worked', activeLeases);
    this.readGauge(
      'crawler_host_slots',
      'Host leases the agent may hold now: fewer while its event loop runs over 50 ms late, more while idle (AGENT_MIN_HOSTS..AGENT_MAX_HOSTS)',
      hostSlots,
    );
    this.readGauge(
      'crawler_feed_holding_leases',
      '1 while the agent takes no new lease: pages a consumer group has not read fill the feed to 90% of FEED_MAX_BYTES (FEED_OVERFLOW=hold)',
      feedHolding,
    );
    this.readGauge(
      'crawler_redis_holding_leases',
      '1 while the agent takes no new lease: Redis is at REDIS_MEMORY_HOLD_RATIO of its maxmemory, or the telemetry the coordinator has not stored nears TELEMETRY_MAX_BYTES',
      redisHolding,
    );
    this.readGauge(
      'crawler_urls_in_flight',
      'URLs a kill now could make the crawl fetch again: requests in flight and done URLs not yet recorded in the frontier',
      urlsInFlight,
    );
    this.readGauge(
      'crawler_event_loop_active_seconds',
      'Seconds the event loop has been busy since the process started (perf_hooks eventLoopUtilization().active): its rate is the event-loop utilization',
      () => performance.eventLoopUtilization().active / 1000,
    );
  }

  /**
   * Gauges of the agent's bounded memory: the robots cache (origins, estimated bytes of their
   * compiled rules) and the decoded-body budget (bytes reserved now, the peak, and waits).
   */
  watchMemory(
    robots: { readonly size: { entries: number; bytes: number } },
    bodies: BodyBudget | null,
  ): void {
    this.readGauge(
      'crawler_robots_cache_bytes',
      'Estimated heap bytes of the compiled robots.txt rules the agent keeps (AGENT_ROBOTS_CACHE_BYTES)',
      () => robots.size.bytes,
    );
    this.readGauge(
      'crawler_robots_cache_origins',
      'Origins whose robots.txt rules the agent keeps in memory',
      () => robots.size.entries,
    );
    if (!bodies) return;
    this.readGauge(
      'crawler_body_budget_bytes',
      'Decoded body bytes reserved now (AGENT_BODY_BUDGET_BYTES)',
      () => bodies.inUse,
    );
    this.readGauge(
      'crawler_body_budget_peak_bytes',
      'Most decoded body bytes reserved at once since the agent started',
      () => bodies.stats.peakBytes,
    );
    let waits = 0;
    new Counter({
      name: 'crawler_body_budget_waits_total',
      help: 'Requests that waited for room in the body budget',
      registers: [this.registry],
      collect() {
        this.inc(bodies.stats.waits - waits);
        waits = bodies.stats.waits;
      },
    });
  }

  /** A gauge that reads its value from `read` when Prometheus scrapes. */
  private readGauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** Counts one telemetry row. */
  observe(row: TelemetryRow): void {
    if (row.error_code === 'robots_denied') {
      this.errors.inc({ code: 'robots_denied' });
      return;
    }
    this.fetches.inc({
      status_class: row.status === 0 ? 'none' : `${Math.floor(row.status / 100)}xx`,
    });
    if (row.error_code) this.errors.inc({ code: row.error_code });
    this.bytes.inc(row.bytes);
    this.fetchSeconds.observe(row.fetch_ms / 1000);
  }
}
