import type { Config } from '@crawler/domain/config';
import { FeedRetention, feedPressure, type FeedPressure } from '@crawler/adapters/feed';
import type { RedisClient } from '@crawler/adapters/redis';

/** What the coordinator reads the feed with. */
export type FeedConfig = Pick<
  Config,
  'REDIS_PREFIX' | 'FEED_PARTITIONS' | 'FEED_MAX_BYTES' | 'FEED_MAX_LEN' | 'FEED_OVERFLOW'
>;

/** One reader per client and feed (its scripts are defined on the client once). */
const readers = new WeakMap<RedisClient, Map<string, FeedRetention>>();

/**
 * The feed's pressure as agents judge it (feedPressure over each partition's state, read by
 * the trim script without trimming): unread pages of the slowest groups, whether agents hold
 * their leasing, every group's unread and dropped pages. For `GET /v1/stats` and /metrics.
 */
export async function readFeedPressure(
  redis: RedisClient,
  config: FeedConfig,
): Promise<FeedPressure> {
  let byFeed = readers.get(redis);
  if (!byFeed) {
    byFeed = new Map<string, FeedRetention>();
    readers.set(redis, byFeed);
  }
  const id = `${config.REDIS_PREFIX}|${config.FEED_PARTITIONS}`;
  let reader = byFeed.get(id);
  if (!reader) {
    reader = new FeedRetention(redis, {
      prefix: config.REDIS_PREFIX,
      partitions: config.FEED_PARTITIONS,
    });
    byFeed.set(id, reader);
  }
  return feedPressure(await reader.read(), {
    maxBytes: config.FEED_MAX_BYTES,
    maxLen: config.FEED_MAX_LEN,
    overflow: config.FEED_OVERFLOW,
  });
}
