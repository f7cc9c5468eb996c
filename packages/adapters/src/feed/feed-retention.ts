import { z } from 'zod';
import { pagesDroppedKey, pagesStreamKey } from '@crawler/domain/messages';
import { evalRedisScript, loadLua, type RedisClient, type RedisScript } from '../redis';

/** The scripts' folder (copied whole into a build): includes are named from it. */
const commandsDir = new URL('./commands/', import.meta.url);
const TRIM_LUA = loadLua(new URL('trimFeed-2.lua', commandsDir), commandsDir);
const DROP_GROUP_LUA = loadLua(new URL('dropFeedGroup-2.lua', commandsDir), commandsDir);

/** Entries one trim call trims at most (Redis's own default LIMIT for `~`: 100 nodes of 100). */
const TRIM_STEP = 10_000;
/** Trim calls per partition and round while a partition is still over its retention. */
const TRIM_ROUNDS = 10;

/** What happens when unread pages reach the feed's bound (FEED_OVERFLOW). */
export type FeedOverflow = 'hold' | 'drop';

/** Where a consumer group is on one partition. */
export interface FeedGroupPosition {
  group: string;
  /** Delivered to its consumers, not yet acknowledged. */
  pending: number;
  /**
   * Entries it has not acknowledged that the partition holds: its pending ones and those it was
   * not delivered yet (all of them when Redis cannot tell its lag).
   */
  unread: number;
  /** The oldest entry id it still needs; retention trims only below it (with `hold`). */
  needsFrom: string;
}

/** One partition of the feed as its trim left it. */
export interface FeedPartitionState {
  partition: number;
  /** Entries it holds. */
  length: number;
  /** What Redis spends on it (MEMORY USAGE, sampled). */
  bytes: number;
  /** Entries this call trimmed. */
  trimmed: number;
  /** This call trimmed as many as one may: there may be more to trim, call again. */
  more: boolean;
  groups: FeedGroupPosition[];
  /** Pages trimmed or unregistered before each group had them, since the feed began. */
  dropped: Record<string, number>;
}

const count = z.coerce.number().int().min(0);
const replySchema = z.tuple([
  count,
  count,
  count,
  count,
  z.array(z.tuple([z.string(), count, count, z.string().regex(/^\d+-\d+$/)])),
  z.array(z.string()),
]);

function stateOf(partition: number, reply: unknown): FeedPartitionState {
  const [length, bytes, trimmed, more, groups, flat] = replySchema.parse(reply);
  const dropped: Record<string, number> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) dropped[flat[i]!] = count.parse(flat[i + 1]);
  return {
    partition,
    length,
    bytes,
    trimmed,
    more: more === 1,
    groups: groups.map(([group, pending, unread, needsFrom]) => ({
      group,
      pending,
      unread,
      needsFrom,
    })),
    dropped,
  };
}

export interface FeedRetentionOptions {
  /** REDIS_PREFIX. */
  prefix: string;
  /** FEED_PARTITIONS. */
  partitions: number;
  /** FEED_OVERFLOW: trims never pass a group's need (`hold`, default), or do and count (`drop`). */
  overflow?: FeedOverflow;
  /**
   * Groups registered even before they exist: created (from the start of the stream) where
   * missing at each trim, so the feed keeps pages for a reader that is not running yet — the
   * coordinator's `ingest` in a coordinated crawl.
   */
  groups?: readonly string[];
}

/**
 * The retention of the `pages.parsed` feed: every consumer group of a partition is registered
 * (created by `FeedConsumer.start()` or `npm run consume`, or always, for `groups`), and a trim
 * removes the oldest entries beyond the retention only where every registered group has
 * acknowledged them — unless FEED_OVERFLOW is `drop`, which counts what each group lost. One Lua
 * script a partition and call (`commands/trimFeed-2.lua`), atomic in the partition's slot; it
 * trims whole stream nodes (`XTRIM … ~`), so a partition may keep up to a node (≤ 100 entries,
 * ≤ 4 KiB unless one entry is larger) more than the retention.
 */
export class FeedRetention {
  private readonly trimScript: RedisScript;
  private readonly dropScript: RedisScript;
  private readonly overflow: FeedOverflow;
  private readonly groups: readonly string[];

  constructor(
    redis: RedisClient,
    private readonly opts: FeedRetentionOptions,
  ) {
    // Not defined as commands: a reader made late (the coordinator's, at its first stats call)
    // would define them while an auto-pipeline is pending, which then fails (evalRedisScript).
    this.trimScript = evalRedisScript(redis, 2, TRIM_LUA);
    this.dropScript = evalRedisScript(redis, 2, DROP_GROUP_LUA);
    this.overflow = opts.overflow ?? 'hold';
    this.groups = opts.groups ?? [];
  }

  /**
   * Trims every partition to about `retention` entries (fewer never; more while a group still
   * needs them, with `hold`) and returns each partition's state. A partition with more to trim
   * than one call may is trimmed again, up to 10 calls this round (the next round goes on).
   */
  async trim(retention: number): Promise<FeedPartitionState[]> {
    const keep = String(Math.max(0, Math.floor(retention)));
    return Promise.all(
      this.partitionNumbers().map(async (p) => {
        let state = await this.call(p, keep, this.overflow, this.groups);
        for (let round = 1; state.more && round < TRIM_ROUNDS; round++) {
          const next = await this.call(p, keep, this.overflow, this.groups);
          state = { ...next, trimmed: state.trimmed + next.trimmed };
        }
        return state;
      }),
    );
  }

  /** Every partition's state, trimming nothing. */
  read(): Promise<FeedPartitionState[]> {
    return Promise.all(this.partitionNumbers().map((p) => this.call(p, '0', 'read', [])));
  }

  /**
   * Unregisters a consumer group (XGROUP DESTROY on every partition): the pages it had not
   * acknowledged count as dropped for it, and retention no longer keeps them. Returns that
   * count, or null when the group is registered on no partition.
   */
  async unregister(group: string): Promise<number | null> {
    const counts = await Promise.all(
      this.partitionNumbers().map(async (p) => {
        return z
          .number()
          .int()
          .min(-1)
          .parse(
            await this.dropScript(
              pagesStreamKey(this.opts.prefix, p),
              pagesDroppedKey(this.opts.prefix, p),
              group,
            ),
          );
      }),
    );
    if (counts.every((n) => n < 0)) return null;
    return counts.reduce((a, n) => a + Math.max(0, n), 0);
  }

  private partitionNumbers(): number[] {
    return Array.from({ length: this.opts.partitions }, (_, p) => p);
  }

  private async call(
    partition: number,
    keep: string,
    mode: FeedOverflow | 'read',
    groups: readonly string[],
  ): Promise<FeedPartitionState> {
    const reply = await this.trimScript(
      pagesStreamKey(this.opts.prefix, partition),
      pagesDroppedKey(this.opts.prefix, partition),
      keep,
      String(TRIM_STEP),
      mode,
      ...groups,
    );
    return stateOf(partition, reply);
  }
}
