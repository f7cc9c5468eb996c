import type { FrontierKeys } from './keys';
import type { FrontierResources } from './resources';

/** Bounds of a URL's re-crawl interval, in ms: shortest, longest, and the first one. */
export interface RecrawlIntervalBounds {
  minMs: number;
  maxMs: number;
  initialMs: number;
}

/**
 * The scripts of the re-crawl schedule, which lives in the frontier's shards (`rc:due`,
 * `rc:meta`, the shard's slot): observeRecrawl-2.lua applies fetch rows to it, mergeRecrawl-4.lua
 * moves a rebuild's replayed schedule into the live one. What the rows mean (the change model,
 * the meta's fields) is the coordinator's: apps/coordinator/src/recrawl/recrawl-store.ts.
 */
export class FrontierRecrawl {
  constructor(private readonly r: FrontierResources) {}

  /**
   * Applies one shard's slice of fetch rows, in order (`opsJson`: the JSON array
   * observeRecrawl-2.lua reads), to the schedule under `keys` (the live keys, or a rebuild's
   * scratch keys of the same shards). `shardCap` is the URLs the shard's schedule keeps at most
   * (0 = no limit). Returns how many captures were scheduled.
   */
  async observe(
    shard: number,
    opsJson: string,
    bounds: RecrawlIntervalBounds,
    shardCap: number,
    keys: FrontierKeys = this.r.keys,
  ): Promise<number> {
    const scheduled = await this.r.cmd.observeRecrawl(
      keys.recrawlDue(shard),
      keys.recrawlMeta(shard),
      bounds.minMs,
      bounds.maxMs,
      bounds.initialMs,
      opsJson,
      shardCap,
    );
    return Number(scheduled);
  }

  /**
   * Moves a shard's schedule under `scratch` (replayed by a frontier rebuild) into the live one,
   * keeping every URL the live schedule already has, and deletes the scratch keys. Returns how
   * many URLs were added.
   */
  async merge(scratch: FrontierKeys, shard: number): Promise<number> {
    const k = this.r.keys;
    const added = await this.r.cmd.mergeRecrawl(
      scratch.recrawlDue(shard),
      scratch.recrawlMeta(shard),
      k.recrawlDue(shard),
      k.recrawlMeta(shard),
    );
    return Number(added);
  }
}
