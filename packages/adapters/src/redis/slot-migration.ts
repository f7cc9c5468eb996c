import type { ConnectionOptions } from 'node:tls';
import { CodedError, ServerUnavailableError } from '@crawler/domain/errors';
import { Redis } from 'ioredis';
import { redisErrorCode, relayedRedisErrorCode } from './redis-error-code';

/**
 * Moving one hash slot between masters of a Redis Cluster the standard (pre-8.4, "legacy") way,
 * what `redis-cli --cluster reshard` does per slot:
 *
 *   1. `CLUSTER SETSLOT <slot> IMPORTING <source-id>` on the target,
 *   2. `CLUSTER SETSLOT <slot> MIGRATING <target-id>` on the source,
 *   3. `CLUSTER GETKEYSINSLOT <slot> <n>` + `MIGRATE <host> <port> "" 0 <timeout> KEYS …` on the
 *      source until the slot is empty there,
 *   4. `CLUSTER SETSLOT <slot> NODE <target-id>` on the target, the source and every other master.
 *
 * Between 1 and 4 the source answers ASK for keys it no longer holds (TRYAGAIN for a multi-key
 * command whose keys are split), and the target serves such keys only after ASKING. Each step is
 * a method, so a caller can resume a move a crash left half-way (the coordinator's
 * `crawler shards move`, apps/coordinator/src/shards/move-shard.ts) and a test can stop in
 * between (packages/testing/src/migrate-slot.ts). Cluster commands are per node: every call opens
 * a short-lived connection to the node it names, with the credentials given to the constructor.
 */

/** One line of `CLUSTER NODES`. */
export interface ClusterNode {
  id: string;
  /** The address the cluster announces (an IP, as nodes reach each other). */
  host: string;
  port: number;
  /** The announced host name (`cluster-announce-hostname`), if any. */
  hostname: string | null;
  master: boolean;
  /** Slot ranges served, inclusive. */
  slots: Array<[number, number]>;
  /** Slots this node is migrating → target id, and importing ← source id (shown on `myself`). */
  migrating: Map<number, string>;
  importing: Map<number, string>;
}

export type NodeAddress = Pick<ClusterNode, 'host' | 'port'>;

/** A master a slot step must talk to does not accept a connection (down, or unreachable from here). */
export class RedisNodeUnavailableError extends ServerUnavailableError {
  readonly code = 'REDIS_UNAVAILABLE';
  constructor(node: NodeAddress, cause: unknown) {
    super(
      'Redis Cluster node',
      `${node.host}:${node.port}`,
      cause,
      'Check that it runs and that the address CLUSTER NODES announces for it is reachable from here.',
    );
  }
}

/** Stable codes of {@link SlotMigrationError}: branch on these, never on the message. */
export type SlotMigrationErrorCode =
  /** A `CLUSTER NODES` line this code cannot read (a reply format it does not know). */
  | 'REDIS_CLUSTER_NODES_INVALID'
  /**
   * A node's `CLUSTER NODES` has no line with the id it was known by (it was reset or replaced
   * since the cluster was read): read the cluster again and retry.
   */
  | 'REDIS_NODE_NOT_LISTED'
  /** A slot asked to move from a node to the same node. */
  | 'REDIS_SLOT_SAME_NODE';

/**
 * What a slot step refuses or cannot read (a node that does not answer is a
 * {@link RedisNodeUnavailableError}).
 */
export class SlotMigrationError extends CodedError<SlotMigrationErrorCode> {
  override readonly name = 'SlotMigrationError';

  constructor(code: SlotMigrationErrorCode, message: string) {
    super(code, message, { REDIS_NODE_NOT_LISTED: 'retry' });
  }
}

/** How to reach a node: the options of the cluster client's node connections. */
export interface NodeConnectOptions {
  username?: string;
  password?: string;
  tls?: ConnectionOptions;
  /** Connect timeout per node (default 2000 ms). */
  connectTimeoutMs?: number;
}

export interface MoveKeysOptions {
  /** Keys per GETKEYSINSLOT + MIGRATE round (default 100). */
  keysPerBatch?: number;
  /** Pause between two rounds (default 0); stretches the migration so clients run into it. */
  pauseMs?: number;
  /** MIGRATE timeout: the longest the source waits on the target during one transfer (default 5000 ms). */
  migrateTimeoutMs?: number;
  /**
   * A key that already exists on the target (BUSYKEY): something wrote it there through ASKING
   * while the source still held it, so the two copies diverged. 'throw' (default) stops with the
   * slot half-moved, as `redis-cli --cluster reshard` does; 'replace' records it and overwrites
   * the target's copy with the source's (what `--cluster-replace` does), so the move completes.
   */
  onBusyKey?: 'throw' | 'replace';
  /** Called after each round with that round's keys (progress reports). */
  onBatch?: (moved: MovedKeys) => void | Promise<void>;
  /** Checked before each round: an aborted move stops there, the slot half-moved. */
  signal?: AbortSignal;
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

/** Parses a `CLUSTER NODES` reply; `defaultHost` fills an empty address (a node not yet met). */
export function parseClusterNodes(text: string, defaultHost = '127.0.0.1'): ClusterNode[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', addr = '', flags = '', , , , , , ...rest] = line.trim().split(' ');
      // ip:port@cport[,hostname]
      const m = /^(.*):(\d+)@\d+(?:,(.*))?$/.exec(addr);
      if (!m)
        throw new SlotMigrationError(
          'REDIS_CLUSTER_NODES_INVALID',
          `unexpected CLUSTER NODES line: ${line}`,
        );
      const node: ClusterNode = {
        id,
        host: m[1] || defaultHost,
        port: Number(m[2]),
        hostname: m[3] || null,
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

/** Whether `node` serves `slot` (in the view it was read from). */
export function servesSlot(node: ClusterNode, slot: number): boolean {
  return node.slots.some(([a, b]) => slot >= a && slot <= b);
}

/** The master serving `slot`, in a `readNodes` answer. */
export function slotOwner(nodes: readonly ClusterNode[], slot: number): ClusterNode | undefined {
  return nodes.find((n) => n.master && servesSlot(n, slot));
}

/** Number of slots a node serves. */
export function slotCount(node: ClusterNode): number {
  return node.slots.reduce((n, [a, b]) => n + b - a + 1, 0);
}

/** The steps of a slot migration, and what a caller reads of a cluster meanwhile. */
export class SlotMigrator {
  constructor(private readonly conn: NodeConnectOptions = {}) {}

  /** The cluster as one node sees it (`CLUSTER NODES`). */
  async readNodes(node: NodeAddress): Promise<ClusterNode[]> {
    const text = String(await this.withNode(node, (r) => r.call('CLUSTER', 'NODES')));
    return parseClusterNodes(text, node.host);
  }

  /**
   * A node's own line of `CLUSTER NODES`: the only one showing its importing and migrating
   * marks, and the slots it believes it serves.
   */
  async self(node: ClusterNode): Promise<ClusterNode> {
    return this.selfIn(await this.readNodes(node), node);
  }

  /** `node`'s own line in the `CLUSTER NODES` view it answered with (see {@link self}). */
  selfIn(view: readonly ClusterNode[], node: ClusterNode): ClusterNode {
    const me = view.find((n) => n.id === node.id);
    if (!me)
      throw new SlotMigrationError(
        'REDIS_NODE_NOT_LISTED',
        `node ${node.host}:${node.port} does not list itself`,
      );
    return me;
  }

  /** Step 1–2: the target imports `slot` from the source, the source migrates it to the target. */
  async beginSlotMigration(slot: number, from: ClusterNode, to: ClusterNode): Promise<void> {
    if (from.id === to.id)
      throw new SlotMigrationError('REDIS_SLOT_SAME_NODE', 'source and target are the same node');
    await this.withNode(to, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.id));
    await this.withNode(from, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.id));
  }

  /** Step 1 alone: the target imports `slot` from the source. */
  async markImporting(slot: number, to: ClusterNode, from: ClusterNode): Promise<void> {
    await this.withNode(to, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.id));
  }

  /** Step 2 alone: the source migrates `slot` to the target. */
  async markMigrating(slot: number, from: ClusterNode, to: ClusterNode): Promise<void> {
    await this.withNode(from, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.id));
  }

  /** Clears a node's importing or migrating mark of `slot` (`CLUSTER SETSLOT … STABLE`). */
  async setStable(slot: number, node: NodeAddress): Promise<void> {
    await this.withNode(node, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'STABLE'));
  }

  /** MIGRATEs the given keys from the source to the target (part of step 3). */
  async migrateKeys(
    from: NodeAddress,
    to: NodeAddress,
    keys: readonly string[],
    opts: MoveKeysOptions = {},
  ): Promise<MovedKeys> {
    return this.withNode(from, (src) => this.migrateBatch(src, to, keys, opts));
  }

  /** Step 3: moves every key of `slot` the source still holds, in rounds. */
  async moveSlotKeys(
    slot: number,
    from: NodeAddress,
    to: NodeAddress,
    opts: MoveKeysOptions = {},
  ): Promise<MovedKeys> {
    return this.withNode(from, async (src) => {
      const out: MovedKeys = { keys: 0, batches: 0, busyKeys: [] };
      for (;;) {
        opts.signal?.throwIfAborted();
        const keys = (await src.call(
          'CLUSTER',
          'GETKEYSINSLOT',
          slot,
          opts.keysPerBatch ?? 100,
        )) as string[] | undefined;
        if (!keys || keys.length === 0) return out;
        const r = await this.migrateBatch(src, to, keys, opts);
        out.keys += r.keys;
        out.batches++;
        out.busyKeys.push(...r.busyKeys);
        await opts.onBatch?.(r);
        if (opts.pauseMs) await sleep(opts.pauseMs);
      }
    });
  }

  /**
   * Step 4: `CLUSTER SETSLOT <slot> NODE <to>` on the target first (once the source stops
   * answering ASK it answers MOVED to the target, which must already know it owns the slot),
   * then on every other master. Setting it again where it is set changes nothing.
   */
  async assignSlot(slot: number, to: ClusterNode, masters: readonly ClusterNode[]): Promise<void> {
    await this.withNode(to, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id));
    for (const m of masters)
      if (m.id !== to.id)
        await this.withNode(m, (r) => r.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id));
  }

  /** Moves `slot` from `from` to `to` (all four steps) and returns what it did. */
  async migrateSlot(opts: MigrateSlotOptions): Promise<MigrateSlotResult> {
    const startedAt = Date.now();
    await this.beginSlotMigration(opts.slot, opts.from, opts.to);
    const moved = await this.moveSlotKeys(opts.slot, opts.from, opts.to, opts);
    const keysMovedAt = Date.now();
    await this.assignSlot(opts.slot, opts.to, opts.masters);
    return { ...moved, startedAt, keysMovedAt, assignedAt: Date.now() };
  }

  /**
   * Puts `slot` back on `owner` whatever state a failed move left it in: an unfinished
   * migration is finished (keys of the source moved to its target, the slot assigned there),
   * stray importing/migrating marks are cleared, and the slot is then moved back to `owner` if
   * another master holds it.
   */
  async restoreSlotOwner(slot: number, owner: ClusterNode): Promise<void> {
    const masters = (await this.readNodes(owner)).filter((n) => n.master);
    for (const m of masters) {
      const target = (await this.self(m)).migrating.get(slot);
      const to = masters.find((n) => n.id === target);
      if (!to) continue;
      await this.moveSlotKeys(slot, m, to, { onBusyKey: 'replace' });
      await this.assignSlot(slot, to, masters);
    }
    for (const m of masters) {
      const me = await this.self(m);
      if (me.migrating.has(slot) || me.importing.has(slot)) await this.setStable(slot, m);
    }
    const current = slotOwner(await this.readNodes(owner), slot);
    if (current && current.id !== owner.id)
      await this.migrateSlot({ slot, from: current, to: owner, masters, onBusyKey: 'replace' });
  }

  /** Keys of `slot` held by one node (`CLUSTER COUNTKEYSINSLOT`). */
  async countKeysInSlot(node: NodeAddress, slot: number): Promise<number> {
    return Number(await this.withNode(node, (r) => r.call('CLUSTER', 'COUNTKEYSINSLOT', slot)));
  }

  /** `INFO errorstats` of one node: error prefix (ASK, MOVED, TRYAGAIN, ERR, …) → replies sent. */
  async errorStats(node: NodeAddress): Promise<Map<string, number>> {
    const text = String(await this.withNode(node, (r) => r.call('INFO', 'errorstats')));
    const out = new Map<string, number>();
    for (const m of text.matchAll(/^errorstat_([^:]+):count=(\d+)/gm)) out.set(m[1]!, Number(m[2]));
    return out;
  }

  /**
   * Runs `fn` on a plain connection to one node (cluster commands are per node), failing fast:
   * a node that cannot be reached is a {@link RedisNodeUnavailableError} (worth retrying later).
   */
  async withNode<T>(node: NodeAddress, fn: (r: Redis) => Promise<T>): Promise<T> {
    const { connectTimeoutMs, ...auth } = this.conn;
    const r = new Redis({
      host: node.host,
      port: node.port,
      ...auth,
      lazyConnect: true,
      connectTimeout: connectTimeoutMs ?? 2000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    r.on('error', () => undefined);
    try {
      await r.connect().catch((err: unknown) => {
        throw new RedisNodeUnavailableError(node, err);
      });
      return await fn(r);
    } finally {
      r.disconnect();
    }
  }

  private async migrateBatch(
    src: Redis,
    to: NodeAddress,
    keys: readonly string[],
    opts: MoveKeysOptions,
  ): Promise<MovedKeys> {
    const timeout = opts.migrateTimeoutMs ?? 5000;
    const out: MovedKeys = { keys: keys.length, batches: 1, busyKeys: [] };
    if (keys.length === 0) return out;
    // The source logs in to the target itself: MIGRATE carries the credentials.
    const { username, password } = this.conn;
    const auth =
      password === undefined ? [] : username ? ['AUTH2', username, password] : ['AUTH', password];
    try {
      await src.call('MIGRATE', to.host, to.port, '', 0, timeout, ...auth, 'KEYS', ...keys);
    } catch (err) {
      if (!isBusyKey(err)) throw err;
      // The keys restored before the busy one are gone from the source already: go one by one.
      for (const key of keys) {
        try {
          await src.call('MIGRATE', to.host, to.port, key, 0, timeout, ...auth);
        } catch (e) {
          if (!isBusyKey(e) || opts.onBusyKey !== 'replace') throw e;
          out.busyKeys.push(key);
          await src.call('MIGRATE', to.host, to.port, key, 0, timeout, 'REPLACE', ...auth);
        }
      }
    }
    return out;
  }
}

/**
 * MIGRATE refused because the key exists on the target. The source wraps the target's reply in
 * its own ERR (`ERR Target instance replied with error: BUSYKEY …`): the relayed code counts.
 */
function isBusyKey(err: unknown): boolean {
  return redisErrorCode(err) === 'BUSYKEY' || relayedRedisErrorCode(err) === 'BUSYKEY';
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
