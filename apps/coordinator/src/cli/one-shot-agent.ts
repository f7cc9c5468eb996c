import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { CrawlAgent } from '@crawler/crawl-core';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { createLogger } from '@crawler/adapters/log';
import type { Config } from '@crawler/domain/config';
import {
  fromAgentSchema,
  REPORT_EVERY_MS,
  toAgentSchema,
  type FromAgent,
  type ToAgent,
} from './one-shot-agent-messages';

// One agent process of a one-shot crawl (`crawler crawl --agents N` forks N of these): it runs
// a CrawlAgent on the crawl's frontier until the crawl says stop, and reports its counters.
// Ctrl-C reaches the whole process group: the agent leaves it to the crawl, which stops every
// agent in order; if the crawl goes away (its IPC channel closes), the agent drains by itself.
if (!process.send) throw new Error('one-shot-agent runs only as a child of `crawler crawl`');

/** Sends a message to the crawl; resolves once it is on its way (or the crawl is gone). */
function send(msg: FromAgent): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(fromAgentSchema.parse(msg), undefined, {}, () => resolve());
  });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);

let agent: CrawlAgent | null = null;
let startedLoop: EventLoopUtilization | null = null;
const elu = () => (startedLoop ? performance.eventLoopUtilization(startedLoop).utilization : 0);
let redis: RedisClient | null = null;
let stopping: Promise<void> | null = null;

async function fail(err: unknown): Promise<never> {
  await send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}

function stop(): Promise<void> {
  stopping ??= (async () => {
    clearInterval(reporter);
    if (agent) {
      await agent.stop();
      await send({ type: 'stopped', counters: { ...agent.counters }, eventLoopUtilization: elu() });
    }
    await redis?.quit();
    process.exit(0);
  })().catch(fail);
  return stopping;
}

const reporter = setInterval(() => {
  if (agent)
    void send({
      type: 'report',
      counters: { ...agent.counters },
      activeLeases: agent.activeLeases,
      eventLoopUtilization: elu(),
    });
}, REPORT_EVERY_MS);

async function start(config: Config, warcDir: string): Promise<void> {
  const log = createLogger(config.agentId, config.LOG_LEVEL);
  redis = await connectRedis(config.REDIS_URL, { cluster: config.REDIS_CLUSTER });
  // No coordinator reads the feed here: it keeps pages only for groups someone registers.
  agent = await CrawlAgent.create(config, redis, log, { warcDir, feedGroups: [] });
  if (stopping) return;
  agent.start();
  startedLoop = performance.eventLoopUtilization();
  await send({ type: 'started' });
}

process.on('message', (raw) => {
  const parsed = toAgentSchema.safeParse(raw);
  if (!parsed.success) {
    void fail(new Error(`bad message from the crawl: ${parsed.error.message}`));
    return;
  }
  const msg = parsed.data as ToAgent;
  if (msg.type === 'stop') void stop();
  else if (!agent) start(msg.config, msg.warcDir).catch(fail);
});
process.on('disconnect', () => void stop());
