import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CrawlerError } from '@crawler/domain/errors';
import type { Frontier } from '@crawler/frontier';
import type { Logger } from '@crawler/adapters/log';
import { redisErrorCode, retryClusterRedirects, type RedisClient } from '@crawler/adapters/redis';
import type { Cluster } from 'ioredis';
import { AppError } from '../api/app-error';
import { callerLabel } from '../auth/caller';
import { auditEntry, type Actor } from '../audit/audit-entry';
import type { Store } from '../db/store';
import {
  addressOf,
  migratorFor,
  readClusterNodes,
  refreshSlotMap,
  requireCluster,
  resolveNode,
  shardSlots,
} from './cluster-access';
import { nodeOf } from './list-shards';
import {
  moveShardInput,
  shardMoveStatusInput,
  type MovePhase,
  type ShardMoveRecord,
  type ShardMoveView,
} from './move-shard.types';
import { planSlotMove, slotIsSettled } from './plan-slot-move';
import { shardMoveStoreOf, type ShardMoveStore } from './shard-move-store';

/** How long `POST /v1/shards/{shard}/move` waits before answering `running` (`wait_ms` default). */
const ANSWER_WITHIN_MS = 20_000;
/** The slot's move lock lives this long unless renewed (every third of it) by its mover. */
const LOCK_TTL_MS = 30_000;
/** One MIGRATE may take this long (a shard's seen set or Bloom filter is one large key). */
const MIGRATE_TIMEOUT_MS = 60_000;
const DEFAULT_KEYS_PER_BATCH = 100;

export interface ShardMoveDeps {
  redis: RedisClient;
  frontier: Frontier;
  store: Store;
  log: Logger;
}

export interface ShardMoveOptions {
  /** Pause between two rounds of keys (tests stretch a move with it; default 0). */
  pauseMs?: number;
  /** Stops the move between two rounds, as if its coordinator had stopped (tests). */
  signal?: AbortSignal;
}

interface RunningMove {
  abort: AbortController;
  done: Promise<ShardMoveRecord>;
}

const running = new WeakMap<RedisClient, Set<RunningMove>>();

function storeOf(deps: Pick<ShardMoveDeps, 'redis' | 'frontier'>): ShardMoveStore {
  return shardMoveStoreOf(deps.redis, deps.frontier.keys.prefix);
}

/**
 * `POST /v1/shards/{shard}/move` (admin): moves a logical shard's hash slot to another master of
 * the Redis Cluster — freeze the shard, `CLUSTER SETSLOT … IMPORTING/MIGRATING`, `MIGRATE` its
 * keys in rounds, `SETSLOT … NODE` on every master, thaw — and answers the move once done, or
 * after `wait_ms` (20 s; 0: at once) with `running` (`GET /v1/shards/{shard}/move` then follows
 * it). Safe to run again: it starts from the slot's actual state, so a move that stopped
 * anywhere is finished, and a move to the node that already serves the shard only thaws it. One move of a slot at a time,
 * across coordinators. Audited when it ends (a Redis change: after it, not with it).
 * @throws AppError `BAD_REQUEST` (shard out of range, unknown node), `CONFLICT` (single Redis,
 *   a move of the slot running, a slot state only `redis-cli --cluster fix` can repair);
 *   RedisNodeUnavailableError (503 `UNAVAILABLE`) when a master does not answer.
 */
export async function moveShard(
  deps: ShardMoveDeps,
  actor: Actor,
  raw: unknown,
  opts: ShardMoveOptions = {},
): Promise<ShardMoveView> {
  const input = moveShardInput.parse(raw);
  const { frontier } = deps;
  if (input.shard >= frontier.shards)
    throw new AppError(
      'BAD_REQUEST',
      `shard must be 0…${frontier.shards - 1} (FRONTIER_SHARDS is ${frontier.shards})`,
      { reason: 'SHARD_OUT_OF_RANGE', shards: frontier.shards },
    );
  const cluster = requireCluster(deps.redis);
  const nodes = await readClusterNodes(cluster);
  const target = resolveNode(nodes, input.to);
  const masters = nodes.filter((n) => n.master);
  const migrator = migratorFor(cluster);
  const slots = await shardSlots(cluster, frontier);
  const slot = slots[input.shard]!;
  const group = slots.flatMap((s, shard) => (s === slot ? [shard] : []));

  const store = storeOf(deps);
  const owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
  if (!(await store.take(slot, owner, LOCK_TTL_MS)))
    throw new AppError(
      'CONFLICT',
      `a move of shard ${input.shard} (slot ${slot}) is running; follow it with GET /v1/shards/${input.shard}/move`,
      { reason: 'SHARD_MOVE_RUNNING' },
    );
  let plan;
  try {
    plan = await planSlotMove(migrator, masters, slot, target, input.shard);
  } catch (err) {
    await store.release(slot, owner);
    throw err;
  }

  const now = new Date().toISOString();
  let record: ShardMoveRecord = {
    shard: input.shard,
    slot,
    status: 'running',
    phase: 'inspecting',
    from: addressOf(plan.from),
    to: addressOf(target),
    to_id: target.id,
    noop: plan.noop,
    resumed: plan.resumed,
    keys_total: null,
    keys_moved: 0,
    batches: 0,
    shards: group,
    started_at: now,
    updated_at: now,
    finished_at: null,
    by: actor.caller ? callerLabel(actor.caller) : 'system',
    error: null,
  };
  const abort = new AbortController();
  const signal = opts.signal ? AbortSignal.any([abort.signal, opts.signal]) : abort.signal;
  const save = async (patch: Partial<ShardMoveRecord>): Promise<void> => {
    record = { ...record, ...patch, updated_at: new Date().toISOString() };
    const current = record;
    if (!(await retryClusterRedirects(() => store.put(owner, current))) && !signal.aborted)
      abort.abort(new Error('the move lock was lost (this coordinator stalled past its expiry)'));
  };
  /** Enters a phase; a move that lost its lock (or is stopping) goes no further. */
  const phase = async (p: MovePhase): Promise<void> => {
    await save({ phase: p });
    signal.throwIfAborted();
  };
  try {
    await save({});
  } catch (err) {
    await store.release(slot, owner).catch(() => undefined);
    throw err;
  }

  const renew = setInterval(() => {
    store.take(slot, owner, LOCK_TTL_MS).then(
      (held) => {
        if (!held) abort.abort(new Error('the move lock was taken over'));
      },
      (err: unknown) => deps.log.warn({ err, slot }, 'could not renew the shard move lock'),
    );
  }, LOCK_TTL_MS / 3);
  renew.unref();

  const run = async (): Promise<ShardMoveRecord> => {
    try {
      if (!plan.noop) {
        await phase('freezing');
        for (const s of group) await retryClusterRedirects(() => frontier.freezeShard(s));
        await phase('migrating');
        for (const n of plan.strays) await migrator.setStable(slot, n);
        if (plan.markImporting) await migrator.markImporting(slot, target, plan.from);
        if (plan.markMigrating) await migrator.markMigrating(slot, plan.from, target);
        if (!plan.keysMoved) {
          const [left, there] = await Promise.all([
            migrator.countKeysInSlot(plan.from, slot),
            migrator.countKeysInSlot(target, slot),
          ]);
          await save({ phase: 'moving_keys', keys_total: left + there, keys_moved: there });
          await migrator.moveSlotKeys(slot, plan.from, target, {
            keysPerBatch: input.keys_per_batch ?? DEFAULT_KEYS_PER_BATCH,
            migrateTimeoutMs: MIGRATE_TIMEOUT_MS,
            ...(opts.pauseMs ? { pauseMs: opts.pauseMs } : {}),
            signal,
            onBatch: (b) =>
              save({ keys_moved: record.keys_moved + b.keys, batches: record.batches + 1 }),
          });
        }
      }
      await phase('assigning');
      await migrator.assignSlot(slot, target, masters);
      // The client learns the new owner now rather than from redirects: calls it had batched
      // for the old one fail once (isClusterRedirect) and are sent again.
      await refreshSlotMap(cluster);
      await phase('thawing');
      for (const s of group) await retryClusterRedirects(() => frontier.thawShard(s));
      // The fleet recorder writes it within seconds anyway: a failure here fails no move.
      await recordShardMap(deps, cluster, group).catch((err: unknown) =>
        deps.log.warn({ err, shard: input.shard }, 'could not record the moved shard’s node'),
      );
      await save({ status: 'done', phase: 'done', finished_at: new Date().toISOString() });
    } catch (err) {
      await failed(err);
    } finally {
      clearInterval(renew);
      await store.release(slot, owner).catch(() => undefined);
    }
    await deps.store.audit
      .record(
        auditEntry(
          actor,
          'shards.move',
          `shard:${record.shard}`,
          { node: record.from },
          {
            node: record.status === 'done' ? record.to : record.from,
            to: record.to,
            status: record.status,
            noop: record.noop,
            resumed: record.resumed,
            keys_moved: record.keys_moved,
            ...(record.error ? { error: record.error } : {}),
          },
        ),
      )
      .catch((err: unknown) => deps.log.error({ err }, 'could not audit a shard move'));
    return record;
  };

  /**
   * Records why the move stopped; thaws the shard only if its slot is whole on one node and this
   * move still holds the lock (a coordinator that took the lock over may have frozen it to move).
   */
  const failed = async (err: unknown): Promise<void> => {
    const aborted = signal.aborted;
    const settled = await slotIsSettled(migrator, masters, slot).catch(() => false);
    const held = settled && (await store.take(slot, owner, LOCK_TTL_MS).catch(() => false));
    if (held)
      for (const s of group)
        await retryClusterRedirects(() => frontier.thawShard(s)).catch(() => undefined);
    const code = aborted
      ? 'SHARD_MOVE_INTERRUPTED'
      : err instanceof CrawlerError
        ? err.code
        : (redisErrorCode(err) ?? 'INTERNAL');
    const message = `${aborted && signal.reason instanceof Error ? signal.reason.message : err instanceof Error ? err.message : String(err)}${
      settled
        ? ''
        : `; shard ${record.shard} stays frozen with its slot split between two nodes: run the move again to finish it`
    }`;
    deps.log.error({ err, shard: record.shard, slot }, 'shard move stopped');
    record = {
      ...record,
      status: aborted ? 'interrupted' : 'failed',
      error: { code, message },
      finished_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    };
    await store.put(owner, record).catch(() => undefined);
  };

  const done = run();
  const entry: RunningMove = { abort, done };
  const set = running.get(deps.redis) ?? new Set<RunningMove>();
  running.set(deps.redis, set);
  set.add(entry);
  void done.finally(() => set.delete(entry));

  const waitMs = input.wait_ms ?? ANSWER_WITHIN_MS;
  if (waitMs > 0) {
    const timer = new AbortController();
    await Promise.race([
      done,
      sleep(waitMs, undefined, { signal: timer.signal }).catch(() => undefined),
    ]);
    timer.abort();
  }
  return viewOf(deps, record);
}

/** `GET /v1/shards/{shard}/move`: the shard's latest move; 404 when it never moved. */
export async function getShardMove(deps: ShardMoveDeps, raw: unknown): Promise<ShardMoveView> {
  const { shard } = shardMoveStatusInput.parse(raw);
  const move = (await storeOf(deps).read([shard])).get(shard);
  if (!move) throw new AppError('NOT_FOUND', `shard ${shard} has not been moved`);
  return viewOf(deps, move);
}

/** Stops this process's moves between two rounds (the coordinator stopping) and waits for them. */
export async function stopShardMoves(redis: RedisClient): Promise<void> {
  const set = running.get(redis);
  if (!set) return;
  for (const m of set) m.abort.abort(new Error('the coordinator stopped'));
  await Promise.allSettled([...set].map((m) => m.done));
}

async function viewOf(deps: ShardMoveDeps, move: ShardMoveRecord): Promise<ShardMoveView> {
  const moving = await deps.redis.hget(deps.frontier.keys.stats(move.shard), 'moving');
  return { ...move, frozen: moving === '1' };
}

/**
 * The shard map in Postgres learns the new owner now (node_since), not at its next round (the
 * client's slot map was refreshed after the slot was assigned).
 */
async function recordShardMap(deps: ShardMoveDeps, cluster: Cluster, group: number[]) {
  const entries = await Promise.all(
    group.map(async (shard) => ({
      shard,
      node: await nodeOf(cluster, deps.frontier.keys.ready(shard)),
    })),
  );
  await deps.store.fleet.recordShardMap(
    entries.flatMap((e) => (e.node === null ? [] : [{ shard: e.shard, node: e.node }])),
    new Date(),
  );
}
