import { z } from 'zod';
import { shardMoveRecord } from './move-shard.types';

/** `GET /v1/shards` and `shards.list`: logical frontier shards in order. */
export const listShardsInput = z
  .object({
    /** `next_cursor` of the previous page (the last shard shown). */
    cursor: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).max(1024).default(256),
  })
  .strict();

export const shardView = z.object({
  shard: z.number().int(),
  hosts: z.number().int(),
  queued_urls: z.number().int(),
  /** Hosts whose next allowed time has come. */
  ready_hosts: z.number().int(),
  open_leases: z.number().int(),
  dead_letters: z.number().int(),
  /** The Redis node serving the shard's slot (`host:port`); null when unknown. */
  node: z.string().nullable(),
  /** Since when that node serves the shard, as the shard map in Postgres recorded it. */
  node_since: z.string().nullable(),
  /** Frozen for a move (`crawler shards move`): its scripts refuse work until it is thawed. */
  frozen: z.boolean(),
  /** The shard's latest move (GET /v1/shards/{shard}/move), or null if it never moved. */
  move: shardMoveRecord.nullable(),
});

export const listShardsOutput = z.object({
  items: z.array(shardView),
  next_cursor: z.string().nullable(),
});
export type ShardView = z.infer<typeof shardView>;
