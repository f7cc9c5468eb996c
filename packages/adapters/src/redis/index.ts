export { connectRedis, type RedisClient, RedisUnavailableError } from './connect-redis';
export {
  checkRedisDurability,
  RedisNotDurableError,
  type RedisDurabilityProblem,
  type RedisNodeDurability,
} from './check-redis-durability';
export { defineRedisScript, evalRedisScript, type RedisScript } from './define-script';
export { loadLua } from './load-lua';
export { cappedHashKeys, type CappedHashKeys } from './keys';
export { CappedHash } from './capped-hash';
export { deleteKeysWithPrefix } from './delete-keys-with-prefix';
export { scanKeys } from './scan-keys';
export { redisErrorCode } from './redis-error-code';
export { isClusterRedirect, retryClusterRedirects } from './cluster-redirects';
export {
  bullmqConnection,
  closeBullmqConnection,
  type BullmqConnectionOptions,
} from './bullmq-connection';
export {
  parseClusterNodes,
  RedisNodeUnavailableError,
  servesSlot,
  slotCount,
  slotOwner,
  SlotMigrator,
  type ClusterNode,
  type MigrateSlotOptions,
  type MigrateSlotResult,
  type MovedKeys,
  type MoveKeysOptions,
  type NodeAddress,
  type NodeConnectOptions,
} from './slot-migration';
