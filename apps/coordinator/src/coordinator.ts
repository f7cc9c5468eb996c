import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { openFrontier } from '@crawler/frontier';
import { agentsKey } from '@crawler/agent';
import { openAnalytics, type AnalyticsStore } from '@crawler/shared/analytics';
import type { Config } from '@crawler/shared/config';
import type { Logger } from '@crawler/shared/log';
import { connectRedis, type RedisClient } from '@crawler/shared/redis';
import { createApiServer } from './api/http-server';
import type { Services } from './api/services';
import { HostPolicyRepository } from './db/host-policy-repository';
import { migrate } from './db/migrate';
import { createDb, type Db } from './db/prisma';
import { SeedRepository } from './db/seed-repository';
import { pushPolicy } from './hosts/host-policy';
import { enqueueSeeds } from './seeds/add-seeds';
import { TelemetryIngest } from './telemetry/ingest-telemetry';

/**
 * The control plane: migrates Postgres, resyncs host policies and pending seeds into the
 * frontier, drains telemetry into ClickHouse and serves the API.
 */
export class Coordinator {
  private constructor(
    readonly services: Services,
    private readonly db: Db,
    private readonly ingestRedis: RedisClient,
    readonly ingest: TelemetryIngest,
    private readonly server: Server,
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
    const ingestRedis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
    const analytics =
      opts.analytics ??
      (await openAnalytics(
        config.CLICKHOUSE_URL
          ? { url: config.CLICKHOUSE_URL }
          : { path: join(config.DATA_DIR, 'clickhouse') },
      ));
    await analytics.migrate();
    const db = createDb(config.DATABASE_URL);
    const frontier = await openFrontier(config, redis);
    const services: Services = {
      config,
      log,
      redis,
      frontier,
      analytics,
      seeds: new SeedRepository(db),
      policies: new HostPolicyRepository(db),
      agentsKey: agentsKey(config.REDIS_PREFIX),
    };
    // Postgres is the record: bring the frontier in line with it (Redis may have been emptied).
    for (const row of await services.policies.listAll()) await pushPolicy(frontier, row);
    for (
      let batch = await services.seeds.listNotEnqueued(5000);
      batch.length > 0;
      batch = await services.seeds.listNotEnqueued(5000)
    ) {
      await enqueueSeeds(services, batch);
    }
    const ingest = new TelemetryIngest(
      ingestRedis,
      analytics,
      config.REDIS_PREFIX,
      `coordinator-${process.pid}`,
      log,
    );
    await ingest.start();
    const server = createApiServer(services);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.COORDINATOR_PORT, config.COORDINATOR_HOST, () => resolve());
    });
    return new Coordinator(services, db, ingestRedis, ingest, server);
  }

  /** The URL the API listens on. */
  get url(): string {
    const a = this.server.address() as AddressInfo;
    return `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await this.ingest.stop();
    await this.services.analytics.close();
    await this.db.$disconnect();
    this.ingestRedis.disconnect();
    await this.services.redis.quit();
  }
}
