import { SlotMigrator, type ClusterNode } from '@crawler/adapters/redis';

/**
 * Slot migration on the local test cluster (no credentials), for tests of what clients see
 * meanwhile: the production steps (packages/adapters/src/redis/slot-migration.ts, which
 * `crawler shards move` runs) as plain functions, so a test can stop in between. Each is the
 * `SlotMigrator` method of the same name (its TSDoc says what it does).
 */
const local = new SlotMigrator();

/** The cluster as the node at `port` sees it (`CLUSTER NODES`). */
export function readClusterNodes(port: number, host = '127.0.0.1'): Promise<ClusterNode[]> {
  return local.readNodes({ host, port });
}

export const beginSlotMigration = local.beginSlotMigration.bind(local);
export const migrateKeys = local.migrateKeys.bind(local);
export const moveSlotKeys = local.moveSlotKeys.bind(local);
export const assignSlot = local.assignSlot.bind(local);
export const migrateSlot = local.migrateSlot.bind(local);
export const restoreSlotOwner = local.restoreSlotOwner.bind(local);
export const errorStats = local.errorStats.bind(local);
export const countKeysInSlot = local.countKeysInSlot.bind(local);
