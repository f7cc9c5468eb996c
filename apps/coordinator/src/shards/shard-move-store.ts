import {
  defineRedisScript,
  loadLua,
  type RedisClient,
  type RedisScript,
} from '@crawler/adapters/redis';
import { shardMoveKeys } from '../keys';
import { shardMoveRecord, type ShardMoveRecord } from './move-shard.types';

const TAKE_LUA = loadLua(new URL('./takeShardMoveLock-1.lua', import.meta.url));
const RELEASE_LUA = loadLua(new URL('./releaseShardMoveLock-1.lua', import.meta.url));
const PUT_LUA = loadLua(new URL('./putShardMove-2.lua', import.meta.url));

/**
 * What the move-lock scripts answer (take, release, put): whether the caller holds the slot's
 * lock. Each script declares the same numbers as locals (shard-move-store.test.ts keeps them
 * in step).
 */
export const ShardMoveLockReply = {
  /** The caller holds the lock: it took or renewed it, released it, or recorded under it. */
  HELD: 1,
  /** The caller does not hold the lock (another does, or it expired): nothing changed. */
  NOT_HELD: 0,
} as const;

/** One of the {@link ShardMoveLockReply} numbers. */
export type ShardMoveLockReply = (typeof ShardMoveLockReply)[keyof typeof ShardMoveLockReply];

/**
 * Shard moves in Redis, shared by every coordinator: a lock per hash slot (one move of a slot at
 * a time, across coordinators) and each shard's latest move. Progress is written only under the
 * lock (putShardMove-2.lua), so a coordinator that lost it cannot overwrite a newer move.
 */
export class ShardMoveStore {
  private readonly keys: ReturnType<typeof shardMoveKeys>;
  private readonly takeScript: RedisScript;
  private readonly releaseScript: RedisScript;
  private readonly putScript: RedisScript;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = shardMoveKeys(prefix);
    this.takeScript = defineRedisScript(redis, 'take_shard_move_lock', 1, TAKE_LUA);
    this.releaseScript = defineRedisScript(redis, 'release_shard_move_lock', 1, RELEASE_LUA);
    this.putScript = defineRedisScript(redis, 'put_shard_move', 2, PUT_LUA);
  }

  /** Takes the slot's move lock for `owner` (or renews it); false when another holds it. */
  async take(slot: number, owner: string, ttlMs: number): Promise<boolean> {
    const r = await this.takeScript(this.keys.lock(slot), owner, ttlMs);
    return Number(r) === ShardMoveLockReply.HELD;
  }

  async release(slot: number, owner: string): Promise<void> {
    await this.releaseScript(this.keys.lock(slot), owner);
  }

  /** Whether any coordinator holds the slot's move lock. */
  async locked(slot: number): Promise<boolean> {
    return (await this.redis.exists(this.keys.lock(slot))) === 1;
  }

  /** Records a move's progress; false when `owner` no longer holds the slot's lock. */
  async put(owner: string, move: ShardMoveRecord): Promise<boolean> {
    const { lock, records } = this.keys;
    const r = await this.putScript(
      lock(move.slot),
      records,
      owner,
      move.shard,
      JSON.stringify(move),
    );
    return Number(r) === ShardMoveLockReply.HELD;
  }

  /**
   * The latest move of each shard asked for (all when `shards` is omitted), a `running` one whose
   * lock nobody holds any more reported as `interrupted`.
   */
  async read(shards?: readonly number[]): Promise<Map<number, ShardMoveRecord>> {
    const { records } = this.keys;
    const raw =
      shards === undefined
        ? Object.entries(await this.redis.hgetall(records))
        : shards.length === 0
          ? []
          : (await this.redis.hmget(records, ...shards.map(String))).map(
              (v, i) => [String(shards[i]), v] as const,
            );
    const out = new Map<number, ShardMoveRecord>();
    for (const [shard, json] of raw) {
      if (json === null) continue;
      const parsed = shardMoveRecord.safeParse(JSON.parse(json));
      if (parsed.success) out.set(Number(shard), parsed.data);
    }
    const running = [...out.values()].filter((m) => m.status === 'running');
    const held = await Promise.all(running.map((m) => this.locked(m.slot)));
    running.forEach((m, i) => {
      if (!held[i]) out.set(m.shard, { ...m, status: 'interrupted' });
    });
    return out;
  }
}

const stores = new WeakMap<RedisClient, ShardMoveStore>();

/** The store of a Redis client (its scripts defined once per client). */
export function shardMoveStoreOf(redis: RedisClient, prefix: string): ShardMoveStore {
  let s = stores.get(redis);
  if (!s) {
    s = new ShardMoveStore(redis, prefix);
    stores.set(redis, s);
  }
  return s;
}
