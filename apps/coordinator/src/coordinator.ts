import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { openFrontier } from '@crawler/frontier';
import { agentsKey } from '@crawler/crawl-core';
import { openAnalytics, type AnalyticsStore } from '@crawler/analytics';
import type { Config } from '@crawler/domain/config';
import type { Logger } from '@crawler/adapters/log';
import { checkRedisDurability, connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { createApiServer } from './api/http-server';
import type { Services } from './api/services';
import { bootstrapAdmin } from './auth/bootstrap-admin';
import { migrate } from './db/migrate';
import { createDb } from './db/prisma';
import { Store } from './db/store';
import { PagesIngest } from './feed/ingest-pages';
import { GenerationWatch } from './frontier-rebuild/watch-generation';
import { stopShardMoves } from './shards/move-shard';
import { TelemetryIngest } from './telemetry/ingest-telemetry';
import { RecrawlStore } from './recrawl/recrawl-store';
import { RecrawlSweeper } from './recrawl/recrawl-sweeper';
import { NearDupIndex } from './dedupe/near-dup-index';
import { FleetRecorder } from './fleet/record-fleet';
import { FrontierSpillLoop } from './frontier-spill/spill-loop';
import { CoordinatorMetrics } from './metrics/coordinator-metrics';
import { SeenConfirmLoop } from './seen-confirm/seen-confirm-loop';

/** How often agents seen and the shard map are recorded in Postgres. */
const FLEET_RECORD_EVERY_MS = 5_000;
/** How often the frontier's generation marker is checked (a Redis emptied while running). */
const GENERATION_CHECK_EVERY_MS = 10_000;

/**
 * The control plane: migrates Postgres, creates the first admin (ADMIN_EMAIL, ADMIN_TOKEN),
 * resyncs host policies and pending seeds into the frontier, drains telemetry and the
 * `pages.parsed` feed into ClickHouse, keeps the re-crawl schedule and sweeps due URLs back into
 * the frontier, and serves the authenticated API.
 */
export class Coordinator {
  private constructor(
    readonly services: Services,
    private readonly ingestRedis: RedisClient,
    readonly ingest: TelemetryIngest,
    /** The `pages.parsed` feed into ClickHouse `pages` (on a connection of its own). */
    readonly pagesIngest: PagesIngest,
    private readonly feedRedis: RedisClient,
    private readonly server: Server,
    /** Moves due URLs into the frontier (a BullMQ job scheduler); `sweep()` runs one now. */
    readonly recrawlSweeper: RecrawlSweeper,
    /** Records agents seen and the shard map in Postgres; `recordOnce()` runs one now. */
    readonly fleet: FleetRecorder,
    /**
     * The frontier's generation: `startup` says what start-up did (a rebuild, when the marker
     * was missing, runs in the background and `startup` settles when it ends); `check()` looks
     * for a Redis emptied since (every 10 s).
     */
    readonly generation: GenerationWatch,
    /** Prometheus metrics; main.ts serves them on COORDINATOR_METRICS_PORT. */
    readonly metrics: CoordinatorMetrics,
    /** Spills the bounded heads' overflow to Postgres and refills low heads (FRONTIER_HEAD_MAX). */
    readonly spill: FrontierSpillLoop,
    /** Confirms the seen set's maybe-seen discoveries against ClickHouse (null: FRONTIER_SEEN_CONFIRM_MAX=0). */
    readonly seenConfirm: SeenConfirmLoop | null,
  ) {}

  static async start(
    config: Config,
    log: Logger,
    opts: { analytics?: AnalyticsStore } = {},
  ): Promise<Coordinator> {
    const applied = await migrate(config.DATABASE_URL);
    log.info(
      { migrations: applied.filter((m) => m.applied).map((m) => m.name) },
      'postgres migrated',
    );
    const redis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
    // Redis is a store here: one that persists nothing or evicts keys would lose the frontier.
    await checkRedisDurability(redis, { volatileOk: config.REDIS_VOLATILE_OK, log }).catch(
      (err: unknown) => {
        redis.disconnect();
        throw err;
      },
    );
    const ingestRedis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
    const analytics =
      opts.analytics ??
      (await openAnalytics(
        config.CLICKHOUSE_URL
          ? { url: config.CLICKHOUSE_URL }
          : { path: join(config.DATA_DIR, 'clickhouse') },
      ));
    await analytics.migrate();
    const store = new Store(createDb(config.DATABASE_URL));
    await bootstrapAdmin(store, config, log);
    const frontier = await openFrontier(config, redis);
    const recrawl = new RecrawlStore(
      redis,
      frontier,
      {
        minMs: config.RECRAWL_MIN_INTERVAL_MS,
        maxMs: config.RECRAWL_MAX_INTERVAL_MS,
        initialMs: config.RECRAWL_INITIAL_INTERVAL_MS,
      },
      config.RECRAWL_MAX_URLS,
    );
    const services: Services = {
      config,
      log,
      redis,
      frontier,
      analytics,
      store,
      agentsKey: agentsKey(config.REDIS_PREFIX),
      recrawl,
    };
    // Postgres is the record: bring the frontier in line with it, and rebuild it from Postgres
    // and ClickHouse when its generation marker is gone (Redis was emptied), now or later.
    const sweeper = new RecrawlSweeper(recrawl, frontier, config.RECRAWL_SWEEP_MAX, log);
    const generation = new GenerationWatch(services, () => sweeper.reschedule());
    await generation.start(GENERATION_CHECK_EVERY_MS);
    const ingest = new TelemetryIngest(
      ingestRedis,
      analytics,
      config.REDIS_PREFIX,
      `coordinator-${config.coordinatorId}`,
      log,
      // Every stored fetch updates its URL's re-crawl schedule (change model, validators).
      async (rows) => void (await recrawl.observe(rows)),
    );
    await ingest.start();
    if (config.RECRAWL_SWEEP_EVERY_MS > 0)
      await sweeper.start(
        { url: config.REDIS_URL, cluster: config.REDIS_CLUSTER },
        config.REDIS_PREFIX,
        config.RECRAWL_SWEEP_EVERY_MS,
      );
    const feedRedis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
    const nearDups = new NearDupIndex(redis, config.REDIS_PREFIX, config.DEDUPE_NEAR_DISTANCE, {
      bucketSize: config.DEDUPE_NEAR_BUCKET_SIZE,
      maxRecords: config.DEDUPE_NEAR_MAX_RECORDS,
    });
    const pagesIngest = new PagesIngest(
      feedRedis,
      analytics,
      {
        prefix: config.REDIS_PREFIX,
        partitions: config.FEED_PARTITIONS,
        consumer: `coordinator-${config.coordinatorId}`,
      },
      log,
      // Near duplicates (SimHash within DEDUPE_NEAR_DISTANCE bits) are found as pages arrive.
      async (pages) =>
        void (await nearDups.checkAndRecord(
          pages.filter((p) => !p.noindex && p.change !== 'unchanged'),
        )),
    );
    await pagesIngest.start();
    const fleet = new FleetRecorder({
      redis,
      frontier,
      fleet: store.fleet,
      agentsKey: services.agentsKey,
      log,
    });
    await fleet.start(FLEET_RECORD_EVERY_MS);
    // Bounded heads (FRONTIER_HEAD_MAX): spill the overflow to Postgres and refill low heads.
    const spill = new FrontierSpillLoop({
      frontier,
      redis,
      databaseUrl: config.DATABASE_URL,
      owner: `coordinator-${config.coordinatorId}`,
      log,
    });
    spill.start(config.FRONTIER_SPILL_EVERY_MS);
    // Bloom "maybe seen" for a discovered URL: checked against the URL table, enqueued if new.
    const seenConfirm =
      config.FRONTIER_SEEN_CONFIRM_MAX > 0 && config.FRONTIER_SEEN === 'bloom'
        ? new SeenConfirmLoop({ redis, frontier, analytics, prefix: config.REDIS_PREFIX, log })
        : null;
    seenConfirm?.start(config.FRONTIER_SEEN_CONFIRM_EVERY_MS);
    const metrics = new CoordinatorMetrics({
      coordinatorId: config.coordinatorId,
      redis,
      frontier,
      prefix: config.REDIS_PREFIX,
      feedPartitions: config.FEED_PARTITIONS,
      feed: config,
      ingests: { fetches: ingest, pages: pagesIngest },
      log,
    });
    const server = createApiServer(services, metrics.observeApi);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.COORDINATOR_PORT, config.COORDINATOR_HOST, () => resolve());
    });
    return new Coordinator(
      services,
      ingestRedis,
      ingest,
      pagesIngest,
      feedRedis,
      server,
      sweeper,
      fleet,
      generation,
      metrics,
      spill,
      seenConfirm,
    );
  }

  /** The URL the API listens on. */
  get url(): string {
    const a = this.server.address() as AddressInfo;
    return `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
  }

  async stop(): Promise<void> {
    // A shard move stops between two rounds of keys (its POST then answers `interrupted`).
    await stopShardMoves(this.services.redis);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await this.generation.stop();
    await this.recrawlSweeper.stop();
    await this.fleet.stop();
    await this.spill.stop();
    await this.seenConfirm?.stop();
    await this.ingest.stop();
    await this.pagesIngest.stop();
    await this.services.analytics.close();
    await this.services.store.disconnect();
    this.ingestRedis.disconnect();
    this.feedRedis.disconnect();
    await this.services.redis.quit();
  }
}
