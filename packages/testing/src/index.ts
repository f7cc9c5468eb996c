export { deleteKeysWithPrefix } from '@crawler/adapters/redis';
export { publishTestPages, testPage, testPageFp } from './feed-pages';
export { hashTagOf, keySlot } from './key-slot';
export {
  assignSlot,
  beginSlotMigration,
  countKeysInSlot,
  errorStats,
  migrateKeys,
  migrateSlot,
  moveSlotKeys,
  readClusterNodes,
  restoreSlotOwner,
} from './migrate-slot';
export { slotOwner, type ClusterNode, type MigrateSlotResult } from '@crawler/adapters/redis';
export {
  sharedLocalRedisCluster,
  testRedisBackends,
  type TestRedisBackend,
} from './redis-backends';
export {
  defaultClusterBasePort,
  holdLocalRedisCluster,
  startLocalRedisCluster,
  stopLocalRedisCluster,
  type LocalRedisCluster,
  type LocalRedisClusterOptions,
} from './redis-cluster';
export { guardScriptSlots, SLOT_GUARD_ERROR, withSlotGuard } from './script-slot-guard';

export { uniquePrefix } from './unique-prefix';
export { redisTestBed } from './redis-test-bed';
export { seededRandom } from '@crawler/domain/random';
export { startTestS3Server, type LoggedRequest, type TestS3Server } from './test-s3-server';
export { startTestRedisServer, type TestRedisServer } from './redis-server';
export { mountTestTmpfs, type TestTmpfs } from './tmpfs';
export { benchEnv } from './bench-env';
export { createTestCa, type TestCa, type TestCertificate } from './test-ca';
