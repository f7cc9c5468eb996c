import { z } from 'zod';

const shardNumber = z.coerce.number().int().min(0).max(4095);

/** `POST /v1/shards/{shard}/move` and `shards.move`. */
export const moveShardInput = z
  .object({
    shard: shardNumber,
    /** The master to move to: `host:port` (as CLUSTER NODES or GET /v1/shards name it) or its node id. */
    to: z.string().trim().min(1).max(300),
    /** Keys per GETKEYSINSLOT + MIGRATE round (default 100). */
    keys_per_batch: z.coerce.number().int().min(1).max(10_000).optional(),
    /**
     * How long to wait for the move before answering `running` (default 20000; 0: answer at once
     * and follow it with GET …/move, as the console does, whose calls time out after 10 s).
     */
    wait_ms: z.coerce.number().int().min(0).max(20_000).optional(),
  })
  .strict();
export type MoveShardInput = z.input<typeof moveShardInput>;

/** `GET /v1/shards/{shard}/move` and `shards.moveStatus`. */
export const shardMoveStatusInput = z.object({ shard: shardNumber }).strict();

/** Where a move is: each phase runs once, in this order (a resumed move skips what is done). */
export const MOVE_PHASES = [
  'inspecting',
  'freezing',
  'migrating',
  'moving_keys',
  'assigning',
  'thawing',
  'done',
] as const;
export type MovePhase = (typeof MOVE_PHASES)[number];

/**
 * A shard move as recorded in Redis: `running` (a coordinator holds the move's lock), `done`,
 * `failed` (`error` says why; the shard stays frozen when its slot is split between two nodes)
 * or `interrupted` (recorded as running, but no coordinator holds its lock any more: it stopped
 * or died mid-way). Moving again resumes from the slot's actual state.
 */
export const shardMoveRecord = z.object({
  shard: z.number().int(),
  slot: z.number().int(),
  status: z.enum(['running', 'done', 'failed', 'interrupted']),
  phase: z.enum(MOVE_PHASES),
  /** The node that served the slot when the move started (`host:port`). */
  from: z.string().nullable(),
  to: z.string(),
  to_id: z.string(),
  /** The slot was already on the target: nothing moved, the shard was only thawed. */
  noop: z.boolean(),
  /** An earlier move of the slot had stopped half-way; this one went on from there. */
  resumed: z.boolean(),
  /** Keys of the slot on both nodes when keys started moving; null before. */
  keys_total: z.number().int().nullable(),
  /** Keys on the target: moved by this move, or by the attempt it resumed. */
  keys_moved: z.number().int(),
  batches: z.number().int(),
  /** Logical shards of this slot (usually just `shard`), frozen while it moves. */
  shards: z.array(z.number().int()),
  started_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
  /** Who asked for it (the audit log's actor label). */
  by: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type ShardMoveRecord = z.infer<typeof shardMoveRecord>;

/** A move with whether the shard is frozen now (its scripts refuse work until thawed). */
export const shardMoveView = shardMoveRecord.extend({ frozen: z.boolean() });
export type ShardMoveView = z.infer<typeof shardMoveView>;

/** `GET /v1/shards/nodes` and `shards.nodes`: the masters a shard can move to. */
export const redisNodesOutput = z.object({
  /** False on a single Redis: shards cannot move. */
  cluster: z.boolean(),
  nodes: z.array(
    z.object({
      id: z.string(),
      /** `host:port` as the cluster announces it: a valid `to` of a move. */
      address: z.string(),
      hostname: z.string().nullable(),
      /** Hash slots it serves, and how many of this frontier's shards are among them. */
      slots: z.number().int(),
      shards: z.number().int(),
    }),
  ),
});
export type RedisNodesOutput = z.infer<typeof redisNodesOutput>;
