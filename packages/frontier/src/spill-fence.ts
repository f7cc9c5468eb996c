import { CrawlerError } from '@crawler/domain/errors';

/**
 * A spill pump's write was refused: the spill is no longer this pump's (another took over, or a
 * rebuild cleared the spill), or the batch it settles is gone. Nothing was changed; the pump
 * must stop and start over under a new ownership (`SpillStore.acquire`), recovering every shard.
 */
export class SpillFencedError extends CrawlerError {
  readonly code = 'FRONTIER_SPILL_FENCED';
  readonly retry = 'retry';
}

/** A pump script's answer for a shard another pump holds (includes/spill.lua: spill_fenced). */
export const FENCED = -3;

/** `reply`, unless it says the shard is another pump's. */
export function fencedReply(shard: number, epoch: number, reply: number): number {
  if (reply === FENCED)
    throw new SpillFencedError(
      `shard ${shard} is worked by a newer spill pump than epoch ${epoch}`,
    );
  return reply;
}
