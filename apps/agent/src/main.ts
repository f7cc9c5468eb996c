import { loadConfig } from '@crawler/domain/config';
import { connectRedis, RedisNotDurableError } from '@crawler/adapters/redis';
import { CrawlAgent, serveMetricsUnlessOff } from '@crawler/crawl-core';
import { createLogger } from '@crawler/adapters/log';

// The agent process: `tsx apps/agent/src/main.ts`. SIGTERM/SIGINT drain it cleanly.
const config = loadConfig();
const log = createLogger('agent', config.LOG_LEVEL);
const redis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
const agent = await CrawlAgent.create(config, redis, log).catch((err: unknown) => {
  // It names every problem and the fix (run Redis with AOF, noeviction): just that, no stack.
  if (err instanceof RedisNotDurableError) {
    console.error(`✗ ${err.message}`);
    process.exit(1);
  }
  throw err;
});
agent.start();
const metrics = await serveMetricsUnlessOff(
  agent.metrics.registry,
  config.AGENT_METRICS_PORT,
  config.AGENT_METRICS_HOST,
  () => agent.health(),
);
log.info(
  { agentId: config.agentId, maxHosts: config.AGENT_MAX_HOSTS, metricsPort: metrics?.port ?? null },
  'agent started',
);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'draining');
    agent
      .stop()
      .then(() => metrics?.server.close())
      .then(() => redis.quit())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.error({ err }, 'drain failed');
        process.exit(1);
      });
  });
}
