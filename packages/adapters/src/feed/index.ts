/**
 * The downstream side of the `pages.parsed` feed: a consumer-group reader with crash recovery,
 * used by the coordinator's ingest into ClickHouse and by `npm run consume`.
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
