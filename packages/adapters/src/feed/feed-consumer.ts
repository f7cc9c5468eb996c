import {
  pagesDroppedKey,
  pagesStreamKey,
  parsedPageSchema,
  type ParsedPageMessage,
} from '@crawler/domain/messages';
import type { RedisClient } from '../redis';
import { StreamGroupReader, type StreamEntry, type StreamGroupState } from '../streams';

/** Where a message sits in the feed: enough to acknowledge it. */
export interface FeedMessageRef {
  partition: number;
  /** Stream entry id (`<ms>-<seq>`). */
  id: string;
}

/** A page read from the feed, validated against `parsedPageSchema`. */
export interface FeedPage extends FeedMessageRef {
  page: ParsedPageMessage;
}

/** A feed entry that is not a valid page (no `page` field, bad JSON, or a schema failure). */
export interface FeedRejected extends FeedMessageRef {
  /** What is wrong, e.g. `url_fp: Invalid string: must match pattern …`. */
  reason: string;
}

/** One read: valid pages and rejected entries; acknowledge both once handled. */
export interface FeedBatch {
  pages: FeedPage[];
  rejected: FeedRejected[];
}

/** A partition as the consumer's group sees it. */
export interface FeedPartitionLag {
  partition: number;
  /** Entries the partition holds now (at most about FEED_MAX_LEN). */
  length: number;
  /** Read by the group, not yet acknowledged. */
  pending: number;
  /** Not yet delivered to the group; null when Redis cannot tell. */
  lag: number | null;
}

export interface FeedConsumerOptions {
  /** REDIS_PREFIX of the installation. */
  prefix: string;
  /** FEED_PARTITIONS: how many partitions the feed has. */
  partitions: number;
  /** Consumer group: each group reads the whole feed at its own pace. */
  group: string;
  /** This consumer's name in the group; keep it across restarts to resume its unacknowledged pages. */
  consumer: string;
  /**
   * Where a group created now starts: false (default) with pages published from now on, true with
   * the oldest page the feed still retains. An existing group resumes where it is either way.
   */
  fromStart?: boolean;
  /** Pages pending this long (ms) with another consumer of the group are taken over. Default 60,000. */
  claimIdleMs?: number;
}

/**
 * Reads the `pages.parsed` feed through a Redis consumer group, at least once. After a crash a
 * consumer with the same name first re-reads the pages it had read but not acknowledged; pages
 * left pending by consumers that are gone are taken over after `claimIdleMs`. Every entry is
 * validated with `parsedPageSchema`; the ones that fail come back as `rejected` (acknowledge
 * them too, so they never block the stream).
 *
 * Its group is registered from `start()` on: the feed's retention trims only pages every
 * registered group has acknowledged, and while one lags so far that unread pages near
 * FEED_MAX_BYTES, agents stop taking leases until it reads on (FEED_OVERFLOW=hold; with `drop`
 * the oldest go anyway, counted in `dropped()`). Watch `lag()`; unregister a group that will
 * not come back (`npm run consume -- --group NAME --unregister`), or it holds the crawl.
 * Give the consumer a Redis connection of its own (reads may BLOCK it).
 */
export class FeedConsumer {
  /** Entries read that failed validation. */
  rejected = 0;
  private readonly reader: StreamGroupReader;
  private readonly partitionOf = new Map<string, number>();
  private readonly keys: string[];

  private readonly prefix: string;
  private readonly group: string;

  constructor(
    private readonly redis: RedisClient,
    opts: FeedConsumerOptions,
  ) {
    this.prefix = opts.prefix;
    this.group = opts.group;
    if (!Number.isInteger(opts.partitions) || opts.partitions < 1)
      throw new RangeError(`FeedConsumer: partitions must be a positive integer`);
    this.keys = Array.from({ length: opts.partitions }, (_, p) => pagesStreamKey(opts.prefix, p));
    this.keys.forEach((key, p) => this.partitionOf.set(key, p));
    this.reader = new StreamGroupReader(redis, {
      streams: this.keys,
      group: opts.group,
      consumer: opts.consumer,
      startAt: opts.fromStart ? '0' : '$',
      ...(opts.claimIdleMs !== undefined ? { claimIdleMs: opts.claimIdleMs } : {}),
    });
  }

  /** Creates the group on every partition where it does not exist yet; call once before reading. */
  async start(): Promise<void> {
    await this.reader.ensureGroups();
  }

  /**
   * Up to `count` entries (default 100): unacknowledged ones of this consumer first, then pages
   * claimed from dead consumers, then new ones; waits up to `blockMs` (default 0) when there is
   * nothing, and with `lingerMs`, once something came, keeps reading that long to fill `count`.
   */
  async read(
    opts: { count?: number; blockMs?: number; lingerMs?: number } = {},
  ): Promise<FeedBatch> {
    const batch: FeedBatch = { pages: [], rejected: [] };
    for (const entry of await this.reader.read(opts)) {
      const partition = this.partitionOf.get(entry.stream) ?? -1;
      const checked = checkEntry(entry);
      if (typeof checked === 'string') {
        batch.rejected.push({ partition, id: entry.id, reason: checked });
        this.rejected++;
      } else batch.pages.push({ partition, id: entry.id, page: checked });
    }
    return batch;
  }

  /** Acknowledges messages: the group will not deliver them again. */
  async ack(messages: Iterable<FeedMessageRef>): Promise<void> {
    const refs = [];
    for (const m of messages) {
      const stream = this.keys[m.partition];
      if (stream !== undefined) refs.push({ stream, id: m.id });
    }
    await this.reader.ack(refs);
  }

  /** After a failed batch: the next read starts again with this consumer's unacknowledged pages. */
  rewind(): void {
    this.reader.rewind();
  }

  /** Each partition's length, pending and lag for this group (XINFO GROUPS / XINFO STREAM). */
  async lag(): Promise<FeedPartitionLag[]> {
    return (await this.reader.state()).map((s: StreamGroupState) => ({
      partition: this.partitionOf.get(s.stream) ?? -1,
      length: s.length,
      pending: s.pending,
      lag: s.lag,
    }));
  }

  /** True when the group has read and acknowledged every page published so far. */
  caughtUp(): Promise<boolean> {
    return this.reader.caughtUp();
  }

  /** Pending pages this consumer found trimmed away before it processed them (acknowledged). */
  get trimmed(): number {
    return this.reader.trimmed;
  }

  /**
   * Pages the group lost, since the feed began: trimmed before it had acknowledged them
   * (FEED_OVERFLOW=drop), or still unread when it was unregistered.
   */
  async dropped(): Promise<number> {
    const counts = await Promise.all(
      this.keys.map((_, p) => this.redis.hget(pagesDroppedKey(this.prefix, p), this.group)),
    );
    return counts.reduce((n, c) => n + Number(c ?? 0), 0);
  }

  /** Pages taken over from consumers that went away. */
  get claimed(): number {
    return this.reader.claimed;
  }
}

/** The page of an entry, or why it is not one. */
function checkEntry(entry: StreamEntry): ParsedPageMessage | string {
  let raw: string | undefined;
  for (let i = 0; i + 1 < entry.fields.length && raw === undefined; i += 2) {
    if (entry.fields[i] === 'page') raw = entry.fields[i + 1];
  }
  if (raw === undefined) return 'no "page" field';
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return 'page is not JSON';
  }
  const parsed = parsedPageSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return `${issue?.path.join('.') || '(page)'}: ${issue?.message ?? 'invalid'}`;
}
