import { CrawlAgent } from '@crawler/crawl-core';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import type { SyntheticWeb } from '@crawler/synthetic-web';
import { Coordinator } from '../src/coordinator';
import { makeTestEnv, writeJson, type TestEnv } from './test-env';

/** The whole system in one process against a synthetic web: coordinator, agents, and cleanup. */
export interface CrawlStack {
  env: TestEnv;
  coordinator: Coordinator;
  agents: CrawlAgent[];
  redis: RedisClient;
  /** Stops agents and coordinator, deletes the run's keys, database and files. */
  stop(): Promise<void>;
}

export async function startCrawlStack(
  /** The web's host → IPv4 map (a synthetic web, or any test server's). */
  web: Pick<SyntheticWeb, 'dnsMap'>,
  overrides: Record<string, string>,
  agentIds: string[],
): Promise<CrawlStack> {
  const env = makeTestEnv({ CRAWLER_NETWORK_ALLOW: '127.0.0.0/8', ...overrides });
  const config = {
    ...env.config,
    CRAWLER_DNS_MAP: writeJson(env.dataDir, 'dns-map.json', web.dnsMap),
  };
  const log = createLogger('test', (process.env.TEST_LOG_LEVEL as 'warn' | undefined) ?? 'warn');
  const coordinator = await Coordinator.start(config, log);
  const redis = await connectRedis(config.REDIS_URL);
  const agents = await Promise.all(
    agentIds.map((id) => CrawlAgent.create({ ...config, agentId: id }, redis, log)),
  );
  return {
    env,
    coordinator,
    agents,
    redis,
    async stop() {
      await Promise.allSettled(agents.map((a) => a.stop()));
      await coordinator.stop();
      await deleteKeysWithPrefix(redis, config.REDIS_PREFIX);
      redis.disconnect();
      await env.cleanup();
    },
  };
}

/** The largest plain host of a web: no Crawl-delay, a robots.txt that lets us in (or none). */
export function largestPlainHost(web: SyntheticWeb): string {
  return web.hosts
    .filter(
      (h) =>
        h.kind === 'normal' &&
        h.crawlDelayS === null &&
        (h.robots === 'missing' || h.robots === 'ok'),
    )
    .sort((a, b) => b.pages - a.pages)[0]!.host;
}
