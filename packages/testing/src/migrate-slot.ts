import { Redis } from 'ioredis';

/**
 * Moving one hash slot between masters of a Redis Cluster the standard (pre-8.4, "legacy") way,
 * for tests of what clients see meanwhile — what `redis-cli --cluster reshard` does per slot:
 *
 *   1. `CLUSTER SETSLOT <slot> IMPORTING <source-id>` on the target,
 *   2. `CLUSTER SETSLOT <slot> MIGRATING <target-id>` on the source,
 *   3. `CLUSTER GETKEYSINSLOT <slot> <n>` + `MIGRATE <host> <port> "" 0 <timeout> KEYS …` on the
 *      source until the slot is empty there,
 *   4. `CLUSTER SETSLOT <slot> NODE <target-id>` on the target, the source and every other master.
 *
 * Between 1 and 4 the source answers ASK for keys it no longer holds (TRYAGAIN for a multi-key
 * command whose keys are split), and the target serves such keys only after ASKING.
 * `migrateSlot` runs all four steps; the steps are exported too, so a test can stop in between.
 */

/** One line of `CLUSTER NODES`. */
export interface ClusterNode {
  id: string;
  host: string;
  port: number;
  master: boolean;
  /** Slot ranges served, inclusive. */
  slots: Array<[number, number]>;
  /** Slots this node is migrating → target id, and importing ← source id (shown on `myself`). */
  migrating: Map<number, string>;
  importing: Map<number, string>;
}

type NodeAddress = Pick<ClusterNode, 'host' | 'port'>;

export interface MoveKeysOptions {
  /** Keys per GETKEYSINSLOT + MIGRATE round (default 100). */
  keysPerBatch?: number;
  /** Pause between two rounds (default 0); stretches the migration so clients run into it. */
  pauseMs?: number;
  /** MIGRATE timeout (default 5000 ms). */
  migrateTimeoutMs?: number;
  /**
   * A key that already exists on the target (BUSYKEY): something wrote it there through ASKING
   * while the source still held it, so the two copies diverged. 'throw' (default) stops with the
   * slot half-moved, as `redis-cli --cluster reshard` does; 'replace' records it and overwrites
   * the target's copy with the source's (what `--cluster-replace` does), so the move completes.
   */
  onBusyKey?: 'throw' | 'replace';
}

export interface MigrateSlotOptions extends MoveKeysOptions {
  slot: number;
  from: ClusterNode;
  to: ClusterNode;
  /** Every master of the cluster (each learns the new owner at the end). */
  masters: readonly ClusterNode[];
}

export interface MovedKeys {
  keys: number;
  batches: number;
  /** Keys that were already on the target when their turn came (see `onBusyKey`). */
  busyKeys: string[];
}

export interface MigrateSlotResult extends MovedKeys {
  /** Date.now() when the slot was marked importing/migrating, emptied on the source, assigned. */
  startedAt: number;
  keysMovedAt: number;
  assignedAt: number;
}

/** The cluster as one node sees it (`CLUSTER NODES`). */
export async function readClusterNodes(port: number, host = '127.0.0.1'): Promise<ClusterNode[]> {
  const text = String(await onNode({ host, port }, (r) => r.call('CLUSTER', 'NODES')));
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', addr = '', flags = '', , , , , , ...rest] = line.split(' ');
      const m = /^(.*):(\d+)@\d+/.exec(addr);
      if (!m) throw new Error(`unexpected CLUSTER NODES line: ${line}`);
      const node: ClusterNode = {
        id,
        host: m[1] || host,
        port: Number(m[2]),
        master: flags.split(',').includes('master'),
        slots: [],
        migrating: new Map(),
        importing: new Map(),
      };
      for (const s of rest) {
        const mark = /^\[(\d+)-([<>])-(\w+)\]$/.exec(s);
        if (mark) {
          (mark[2] === '>' ? node.migrating : node.importing).set(Number(mark[1]), mark[3]!);
          continue;
        }
        const [a, b] = s.split('-').map(Number);
        if (a !== undefined && Number.isInteger(a)) node.slots.push([a, b ?? a]);
      }
      return node;
    });
}

/** The master serving `slot`, in a `readClusterNodes` answer. */
export function slotOwner(nodes: readonly ClusterNode[], slot: number): ClusterNode | undefined {
  return nodes.find((n) => n.master && n.slots.some(([a, b]) => slot >= a && slot <= b));
}

/** Step 1–2: the target imports `slot` from the source, the source migrates it to the target. */
export async function beginSlotMigration(
  slot: number,
  from: ClusterNode,
  to: ClusterNode,
): Promise<void> {
  if (from.id === to.id) throw new Error('source and target are the same node');
  await onNode(to, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.id));
  await onNode(from, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.id));
}

/** MIGRATEs the given keys from the source to the target (part of step 3). */
export async function migrateKeys(
  from: NodeAddress,
  to: NodeAddress,
  keys: readonly string[],
  opts: MoveKeysOptions = {},
): Promise<MovedKeys> {
  return onNode(from, (src) => migrateBatch(src, to, keys, opts));
}

/** Step 3: moves every key of `slot` the source still holds, in rounds. */
export async function moveSlotKeys(
  slot: number,
  from: NodeAddress,
  to: NodeAddress,
  opts: MoveKeysOptions = {},
): Promise<MovedKeys> {
  return onNode(from, async (src) => {
    const out: MovedKeys = { keys: 0, batches: 0, busyKeys: [] };
    for (;;) {
      const keys = (await src.call('CLUSTER', 'GETKEYSINSLOT', slot, opts.keysPerBatch ?? 100)) as
        string[] | undefined;
      if (!keys || keys.length === 0) return out;
      const r = await migrateBatch(src, to, keys, opts);
      out.keys += r.keys;
      out.batches++;
      out.busyKeys.push(...r.busyKeys);
      if (opts.pauseMs) await sleep(opts.pauseMs);
    }
  });
}

/**
 * Step 4: `CLUSTER SETSLOT <slot> NODE <to>` on the target first (once the source stops answering
 * ASK it answers MOVED to the target, which must already know it owns the slot), then on every
 * other master.
 */
export async function assignSlot(
  slot: number,
  to: ClusterNode,
  masters: readonly ClusterNode[],
): Promise<void> {
  await onNode(to, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id));
  for (const m of masters)
    if (m.id !== to.id) await onNode(m, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id));
}

/** Moves `slot` from `from` to `to` (all four steps) and returns what it did. */
export async function migrateSlot(opts: MigrateSlotOptions): Promise<MigrateSlotResult> {
  const startedAt = Date.now();
  await beginSlotMigration(opts.slot, opts.from, opts.to);
  const moved = await moveSlotKeys(opts.slot, opts.from, opts.to, opts);
  const keysMovedAt = Date.now();
  await assignSlot(opts.slot, opts.to, opts.masters);
  return { ...moved, startedAt, keysMovedAt, assignedAt: Date.now() };
}

/**
 * Puts `slot` back on `owner` whatever state a failed test left it in: an unfinished migration is
 * finished (keys of the source moved to its target, the slot assigned there), stray
 * importing/migrating marks are cleared, and the slot is then moved back to `owner` if another
 * master holds it.
 */
export async function restoreSlotOwner(slot: number, owner: ClusterNode): Promise<void> {
  const self = async (m: ClusterNode): Promise<ClusterNode> => {
    const me = (await readClusterNodes(m.port, m.host)).find((n) => n.id === m.id);
    if (!me) throw new Error(`node ${m.port} does not list itself`);
    return me;
  };
  const masters = (await readClusterNodes(owner.port, owner.host)).filter((n) => n.master);
  for (const m of masters) {
    const target = (await self(m)).migrating.get(slot);
    const to = masters.find((n) => n.id === target);
    if (!to) continue;
    await moveSlotKeys(slot, m, to, { onBusyKey: 'replace' });
    await assignSlot(slot, to, masters);
  }
  for (const m of masters) {
    const me = await self(m);
    if (me.migrating.has(slot) || me.importing.has(slot))
      await onNode(m, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
  }
  const current = slotOwner(await readClusterNodes(owner.port, owner.host), slot);
  if (current && current.id !== owner.id)
    await migrateSlot({ slot, from: current, to: owner, masters, onBusyKey: 'replace' });
}

/** `INFO errorstats` of one node: error prefix (ASK, MOVED, TRYAGAIN, ERR, …) → replies sent. */
export async function errorStats(node: NodeAddress): Promise<Map<string, number>> {
  const text = String(await onNode(node, (r) => r.call('INFO', 'errorstats')));
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^errorstat_([^:]+):count=(\d+)/gm)) out.set(m[1]!, Number(m[2]));
  return out;
}

/** Keys of `slot` held by one node (`CLUSTER COUNTKEYSINSLOT`). */
export async function countKeysInSlot(node: NodeAddress, slot: number): Promise<number> {
  return Number(await onNode(node, (r) => r.call('CLUSTER', 'COUNTKEYSINSLOT', slot)));
}

// ---------------------------------------------------------------------------------------------

async function migrateBatch(
  src: Redis,
  to: NodeAddress,
  keys: readonly string[],
  opts: MoveKeysOptions,
): Promise<MovedKeys> {
  const timeout = opts.migrateTimeoutMs ?? 5000;
  const out: MovedKeys = { keys: keys.length, batches: 1, busyKeys: [] };
  if (keys.length === 0) return out;
  try {
    await src.call('MIGRATE', to.host, to.port, '', 0, timeout, 'KEYS', ...keys);
  } catch (err) {
    if (!isBusyKey(err)) throw err;
    // The keys restored before the busy one are gone from the source already: go one by one.
    for (const key of keys) {
      try {
        await src.call('MIGRATE', to.host, to.port, key, 0, timeout);
      } catch (e) {
        if (!isBusyKey(e) || opts.onBusyKey !== 'replace') throw e;
        out.busyKeys.push(key);
        await src.call('MIGRATE', to.host, to.port, key, 0, timeout, 'REPLACE');
      }
    }
  }
  return out;
}

function isBusyKey(err: unknown): boolean {
  return err instanceof Error && /BUSYKEY/.test(err.message);
}

/** Runs `fn` on a plain connection to one node (cluster commands are per node), failing fast. */
async function onNode<T>(node: NodeAddress, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({
    host: node.host,
    port: node.port,
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  await r.connect();
  try {
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
