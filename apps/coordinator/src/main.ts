import { loadConfig } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { RedisNotDurableError, RedisUnavailableError } from '@crawler/adapters/redis';
import { serveMetricsUnlessOff } from '@crawler/crawl-core';
import { Coordinator } from './coordinator';

// The coordinator process: `tsx apps/coordinator/src/main.ts`.
const config = loadConfig();
const log = createLogger('coordinator', config.LOG_LEVEL);
const coordinator = await Coordinator.start(config, log).catch((err: unknown) => {
  // These say what is wrong and how to fix it (e.g. run Redis with AOF): just that, no stack.
  if (err instanceof RedisNotDurableError || err instanceof RedisUnavailableError) {
    console.error(`✗ ${err.message}`);
    process.exit(1);
  }
  throw err;
});
const metrics = await serveMetricsUnlessOff(
  coordinator.metrics.registry,
  config.COORDINATOR_METRICS_PORT,
  config.COORDINATOR_METRICS_HOST,
);
log.info({ url: coordinator.url, metricsPort: metrics?.port ?? null }, 'coordinator listening');
console.log(`coordinator: API on ${coordinator.url} (REST /v1, tRPC /trpc)`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    metrics?.server.close();
    coordinator
      .stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.error({ err }, 'stop failed');
        process.exit(1);
      });
  });
}
