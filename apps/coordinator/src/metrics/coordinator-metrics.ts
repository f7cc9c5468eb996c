import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Frontier } from '@crawler/frontier';
import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import { pagesStreamKey, telemetryStreamKey } from '@crawler/domain/messages';
import { restRoutes } from '../api/rest-routes';
import { appRouter } from '../api/router';
import { registerApiMetrics, type ApiObserver } from './api-metrics';
import { apiRouteLabeller } from './api-route';
import { readFeedPressure, type FeedConfig } from '../feed/read-feed-pressure';
import { registerFeedMetrics } from './feed-metrics';
import { registerFrontierMetrics } from './frontier-metrics';
import { registerIngestMetrics, type IngestCounts } from './ingest-metrics';
import { registerStreamMetrics, type WatchedStream } from './stream-metrics';

/** What the coordinator's metrics read. */
export interface CoordinatorMetricsDeps {
  coordinatorId: string;
  /** A connection that never BLOCKs (the scrape reads through it). */
  redis: RedisClient;
  frontier: Frontier;
  /** REDIS_PREFIX and FEED_PARTITIONS: where the telemetry stream and the feed are. */
  prefix: string;
  feedPartitions: number;
  /** The feed's bound (FEED_MAX_BYTES, FEED_MAX_LEN, FEED_OVERFLOW), for its pressure. */
  feed: FeedConfig;
  /** The ingests by ClickHouse table: `fetches` (telemetry) and `pages` (the feed). */
  ingests: Readonly<Record<string, IngestCounts>>;
  log: Logger;
}

/** The streams whose consumer groups are watched: telemetry, and every partition of the feed. */
export function watchedStreams(prefix: string, feedPartitions: number): WatchedStream[] {
  return [
    { key: telemetryStreamKey(prefix), stream: 'telemetry', partition: '0' },
    ...Array.from({ length: feedPartitions }, (_, p) => ({
      key: pagesStreamKey(prefix, p),
      stream: 'pages.parsed',
      partition: String(p),
    })),
  ];
}

/**
 * The coordinator's Prometheus metrics (docs/OBSERVABILITY.md lists them): API latency by route,
 * ingest rows by table, stream backlogs and ingest lag, the feed's unread bytes, hold and drops,
 * frontier sizes, leases, backoffs and dead letters, plus Node's process metrics. Everything but
 * the API histogram is read when Prometheus scrapes, so nothing runs between scrapes. main.ts
 * serves the registry on COORDINATOR_METRICS_PORT.
 */
export class CoordinatorMetrics {
  readonly registry = new Registry();
  /** Hands each API request to the latency histogram (the API server calls it). */
  readonly observeApi: ApiObserver;

  constructor(deps: CoordinatorMetricsDeps) {
    this.registry.setDefaultLabels({ coordinator: deps.coordinatorId });
    collectDefaultMetrics({ register: this.registry });
    // A failed read leaves its metrics out of one scrape; say so, at most once a minute.
    let warnedAt = 0;
    const onError = (err: unknown) => {
      if (Date.now() - warnedAt < 60_000) return;
      warnedAt = Date.now();
      deps.log.warn({ err }, 'metrics: could not read the frontier or the streams');
    };
    this.observeApi = registerApiMetrics(
      this.registry,
      apiRouteLabeller(restRoutes, Object.keys(appRouter._def.procedures)),
    );
    registerIngestMetrics(this.registry, deps.ingests);
    registerStreamMetrics(
      this.registry,
      deps.redis,
      watchedStreams(deps.prefix, deps.feedPartitions),
      onError,
    );
    registerFeedMetrics(this.registry, () => readFeedPressure(deps.redis, deps.feed), onError);
    registerFrontierMetrics(this.registry, deps.frontier, deps.redis, onError);
  }
}
