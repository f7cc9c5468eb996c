/**
 * The `pages.parsed` feed in Redis: a consumer-group reader with crash recovery (the
 * coordinator's ingest into ClickHouse, `npm run consume`), and the retention that keeps every
 * page a registered group has not read, with the pressure that holds agents' leasing.
 */
export {
  FeedConsumer,
  type FeedBatch,
  type FeedConsumerOptions,
  type FeedMessageRef,
  type FeedPage,
  type FeedPartitionLag,
  type FeedRejected,
} from './feed-consumer';
export {
  FeedRetention,
  type FeedGroupPosition,
  type FeedOverflow,
  type FeedPartitionState,
  type FeedRetentionOptions,
} from './feed-retention';
export {
  FEED_HOLD_SHARE,
  feedPressure,
  type FeedGroupPressure,
  type FeedLimits,
  type FeedPressure,
} from './feed-pressure';
