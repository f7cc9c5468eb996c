import {
  servesSlot,
  slotOwner,
  type ClusterNode,
  type SlotMigrator,
} from '@crawler/adapters/redis';
import { AppError } from '../api/app-error';
import { addressOf } from './cluster-access';

/**
 * What moving a slot to `target` still needs, read from the slot's actual state on every master
 * (each one's own `CLUSTER NODES` line: the only one showing its importing/migrating marks), so
 * a move that stopped anywhere — before or after a mark was set, with some keys moved, with the
 * new owner assigned on some masters only — is picked up where it stopped.
 */
export interface SlotMovePlan {
  /** The master the keys move from (the owner, or the node still migrating the slot). */
  from: ClusterNode;
  /** The slot is wholly on the target and every master says so: nothing to move. */
  noop: boolean;
  /** A mark or an assignment of an earlier attempt was found. */
  resumed: boolean;
  /** Step 1 and 2 still to do (`CLUSTER SETSLOT … IMPORTING` on the target, `MIGRATING` on the source). */
  markImporting: boolean;
  markMigrating: boolean;
  /** Masters holding a stray importing mark (no key of the slot): cleared with SETSLOT STABLE. */
  strays: ClusterNode[];
  /** True when the slot's keys have left (or never were on) the source. */
  keysMoved: boolean;
}

/** Each master's own view of itself. */
export async function readSelves(
  migrator: SlotMigrator,
  masters: readonly ClusterNode[],
): Promise<ClusterNode[]> {
  return Promise.all(masters.map((m) => migrator.self(m)));
}

/**
 * Whether the slot sits on one node with no migration marks and every master agreeing on its
 * owner: the shard's scripts can run again.
 */
export async function slotIsSettled(
  migrator: SlotMigrator,
  masters: readonly ClusterNode[],
  slot: number,
): Promise<boolean> {
  const views = await Promise.all(masters.map((m) => migrator.readNodes(m)));
  const selves = views.map((v, i) => v.find((n) => n.id === masters[i]!.id));
  if (selves.some((n) => !n || n.migrating.has(slot) || n.importing.has(slot))) return false;
  const owners = new Set(views.map((v) => slotOwner(v, slot)?.id));
  return owners.size === 1 && !owners.has(undefined);
}

const conflict = (reason: string, message: string, more: Record<string, unknown> = {}) =>
  new AppError('CONFLICT', message, { reason, ...more });

/** Reads the slot's state and decides what is left to do; a 409 for a state it cannot finish. */
export async function planSlotMove(
  migrator: SlotMigrator,
  masters: readonly ClusterNode[],
  slot: number,
  target: ClusterNode,
  shard: number,
): Promise<SlotMovePlan> {
  const views = await Promise.all(masters.map((m) => migrator.readNodes(m)));
  const selves = views.map((v, i) => migrator.selfIn(v, masters[i]!));
  const name = (id: string) => {
    const n = masters.find((m) => m.id === id);
    return n ? addressOf(n) : id;
  };
  const migrating = selves.filter((n) => n.migrating.has(slot));
  if (migrating.length > 1)
    throw conflict(
      'SHARD_MOVE_SLOT_STATE',
      `slot ${slot} is marked migrating on ${migrating.map(addressOf).join(' and ')}; ` +
        'repair it with `redis-cli --cluster fix` first',
    );
  const src = migrating[0];
  if (src && src.migrating.get(slot) !== target.id) {
    const to = name(src.migrating.get(slot)!);
    throw conflict(
      'SHARD_MOVE_OTHER_TARGET',
      `slot ${slot} is half-way from ${addressOf(src)} to ${to} (an earlier move stopped); ` +
        `finish that one first: crawler shards move ${shard} --to ${to}`,
      { migrating_to: to },
    );
  }
  const claimers = selves.filter((n) => servesSlot(n, slot));
  const from = src ?? claimers[0];
  if (!src && claimers.length !== 1)
    throw conflict(
      'SHARD_MOVE_SLOT_STATE',
      claimers.length === 0
        ? `no master serves slot ${slot}; assign it with \`redis-cli --cluster fix\` first`
        : `${claimers.map(addressOf).join(' and ')} each claim slot ${slot}; repair it with \`redis-cli --cluster fix\` first`,
    );
  const tgt = selves.find((n) => n.id === target.id)!;
  const importers = selves.filter((n) => n.importing.has(slot));
  const targetImports = tgt.importing.get(slot);
  const strays: ClusterNode[] = [];
  for (const n of importers) {
    if (n.id === target.id && targetImports === from!.id) continue;
    // A node importing without a source migrating to it was never sent a key (ASK comes from
    // the migrating node only); one that holds keys of the slot is not ours to judge.
    if ((await migrator.countKeysInSlot(n, slot)) > 0)
      throw conflict(
        'SHARD_MOVE_SLOT_STATE',
        `${addressOf(n)} imports slot ${slot} from ${name(n.importing.get(slot)!)} and holds keys of it; ` +
          'repair it with `redis-cli --cluster fix` first',
      );
    strays.push(n);
  }
  const targetOwns = servesSlot(tgt, slot);
  if (from!.id === target.id) {
    // Assigned on the target already: at most the other masters still need telling.
    const agreed = views.every((v) => slotOwner(v, slot)?.id === target.id);
    return {
      from: from!,
      noop: agreed && strays.length === 0,
      resumed: !agreed || strays.length > 0,
      markImporting: false,
      markMigrating: false,
      strays,
      keysMoved: true,
    };
  }
  const markImporting = !targetOwns && !(targetImports === from!.id);
  return {
    from: from!,
    noop: false,
    resumed: src !== undefined || !markImporting || targetOwns,
    markImporting,
    markMigrating: src === undefined && !targetOwns,
    strays,
    keysMoved: false,
  };
}
