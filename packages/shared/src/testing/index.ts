import { randomBytes } from 'node:crypto';

export { deleteKeysWithPrefix } from '../redis';
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
  slotOwner,
  type ClusterNode,
  type MigrateSlotOptions,
  type MigrateSlotResult,
  type MovedKeys,
  type MoveKeysOptions,
} from './migrate-slot';
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

/** A Redis key prefix no other test run uses. */
export function uniquePrefix(label = 't'): string {
  return `test-${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}
export { seededRandom } from './seeded-random';
export { startTestRedisServer, type TestRedisServer } from './redis-server';
export { mountTestTmpfs, type TestTmpfs } from './tmpfs';
