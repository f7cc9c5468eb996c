import { setTimeout as sleep } from 'node:timers/promises';
import {
  FeedConsumer,
  FeedRetention,
  feedPressure,
  type FeedPressure,
} from '@crawler/adapters/feed';
import { connectRedis, redisErrorCode, type RedisClient } from '@crawler/adapters/redis';
import { loadConfig } from '@crawler/domain/config';

/** The bench's own consumer group: every page the agents publish, as a downstream reader sees it. */
export const AUDIT_GROUP = 'chaos-audit';

/**
 * A downstream consumer of the feed run by the bench from before the seeding to the end: a
 * registered group like any other, which reads every page as it comes (on a connection of its
 * own; Redis restarts under it, and it carries on). What it read is what ClickHouse `pages` must
 * hold at the end: the url_fp of every page the agents published.
 */
export class FeedAudit {
  /** The url_fp of every page read. */
  readonly fps = new Set<string>();
  failedReads = 0;
  private running = true;
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly redis: RedisClient,
    private readonly consumer: FeedConsumer,
  ) {}

  static async start(url: string, prefix: string): Promise<FeedAudit> {
    const redis = await connectRedis(url);
    redis.on('error', () => undefined);
    const consumer = new FeedConsumer(redis, {
      prefix,
      partitions: loadConfig({}).FEED_PARTITIONS,
      group: AUDIT_GROUP,
      consumer: 'bench',
      fromStart: true,
      claimIdleMs: 0,
    });
    await consumer.start();
    const audit = new FeedAudit(redis, consumer);
    audit.loop = audit.run();
    return audit;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const batch = await this.consumer.read({ count: 500, blockMs: 500 });
        for (const p of batch.pages) this.fps.add(p.page.url_fp);
        await this.consumer.ack([...batch.pages, ...batch.rejected]);
      } catch (err) {
        // Redis restarting; or emptied of the group (it is created again).
        this.failedReads++;
        if (redisErrorCode(err) === 'NOGROUP') await this.consumer.start().catch(() => undefined);
        this.consumer.rewind();
        await sleep(500);
      }
    }
  }

  /** Reads until it has everything published so far (or `ms` pass), then stops. */
  async finish(ms: number): Promise<boolean> {
    const until = performance.now() + ms;
    let done = false;
    while (!done && performance.now() < until) {
      done = await this.consumer.caughtUp().catch(() => false);
      if (!done) await sleep(250);
    }
    this.running = false;
    await this.loop;
    this.redis.disconnect();
    return done;
  }
}

/**
 * Reads the feed's pressure, as agents judge it, from Redis (null while Redis does not answer).
 * One reader, made once: its scripts are defined on the client.
 */
export function feedReader(
  redis: RedisClient,
  prefix: string,
  maxBytes: number,
): () => Promise<FeedPressure | null> {
  const config = loadConfig({ FEED_MAX_BYTES: String(maxBytes) });
  const retention = new FeedRetention(redis, { prefix, partitions: config.FEED_PARTITIONS });
  const limits = {
    maxBytes: config.FEED_MAX_BYTES,
    maxLen: config.FEED_MAX_LEN,
    overflow: config.FEED_OVERFLOW,
  };
  return async () => {
    const states = await retention.read().catch(() => null);
    return states && feedPressure(states, limits);
  };
}
