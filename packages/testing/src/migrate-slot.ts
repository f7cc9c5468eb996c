import {
  SlotMigrator,
  slotOwner,
  type ClusterNode,
  type MigrateSlotOptions,
  type MigrateSlotResult,
  type MovedKeys,
  type MoveKeysOptions,
  type NodeAddress,
} from '@crawler/adapters/redis';

/**
 * Slot migration on the local test cluster (no credentials), for tests of what clients see
 * meanwhile: the production steps (packages/adapters/src/redis/slot-migration.ts, which
 * `crawler shards move` runs) as plain functions, so a test can stop in between.
 */
const local = new SlotMigrator();

export { slotOwner };
export type { ClusterNode, MigrateSlotOptions, MigrateSlotResult, MovedKeys, MoveKeysOptions };

/** The cluster as one node sees it (`CLUSTER NODES`). */
export function readClusterNodes(port: number, host = '127.0.0.1'): Promise<ClusterNode[]> {
  return local.readNodes({ host, port });
}

/** Step 1–2: the target imports `slot` from the source, the source migrates it to the target. */
export function beginSlotMigration(slot: number, from: ClusterNode, to: ClusterNode) {
  return local.beginSlotMigration(slot, from, to);
}

/** MIGRATEs the given keys from the source to the target (part of step 3). */
export function migrateKeys(
  from: NodeAddress,
  to: NodeAddress,
  keys: readonly string[],
  opts: MoveKeysOptions = {},
): Promise<MovedKeys> {
  return local.migrateKeys(from, to, keys, opts);
}

/** Step 3: moves every key of `slot` the source still holds, in rounds. */
export function moveSlotKeys(
  slot: number,
  from: NodeAddress,
  to: NodeAddress,
  opts: MoveKeysOptions = {},
): Promise<MovedKeys> {
  return local.moveSlotKeys(slot, from, to, opts);
}

/** Step 4: `CLUSTER SETSLOT <slot> NODE <to>` on the target, then every other master. */
export function assignSlot(slot: number, to: ClusterNode, masters: readonly ClusterNode[]) {
  return local.assignSlot(slot, to, masters);
}

/** Moves `slot` from `from` to `to` (all four steps) and returns what it did. */
export function migrateSlot(opts: MigrateSlotOptions): Promise<MigrateSlotResult> {
  return local.migrateSlot(opts);
}

/** Puts `slot` back on `owner` whatever state a failed test left it in. */
export function restoreSlotOwner(slot: number, owner: ClusterNode): Promise<void> {
  return local.restoreSlotOwner(slot, owner);
}

/** `INFO errorstats` of one node: error prefix (ASK, MOVED, TRYAGAIN, ERR, …) → replies sent. */
export function errorStats(node: NodeAddress): Promise<Map<string, number>> {
  return local.errorStats(node);
}

/** Keys of `slot` held by one node (`CLUSTER COUNTKEYSINSLOT`). */
export function countKeysInSlot(node: NodeAddress, slot: number): Promise<number> {
  return local.countKeysInSlot(node, slot);
}
