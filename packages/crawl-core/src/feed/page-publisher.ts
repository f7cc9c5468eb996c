import { pagePartition, pagesStreamKey, type ParsedPageMessage } from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';
import {
  FeedRetention,
  feedPressure,
  type FeedOverflow,
  type FeedPartitionState,
  type FeedPressure,
} from '@crawler/adapters/feed';
import { BufferedWriter } from '../streams/buffered-writer';

const CLOSE_BRACE = Buffer.from('}');
/**
 * What Redis spends on a stream entry beside its JSON, measured with MEMORY USAGE over 5,000
 * entries (Redis 7.0): ~130 bytes for small entries, ~12% for 13 kB ones (listpack nodes round
 * up to the allocator's size classes).
 */
const STREAM_ENTRY_OVERHEAD_BYTES = 128;
const STREAM_ENTRY_OVERHEAD_SHARE = 0.1;
/** Entries a partition keeps at least, however large they are. */
const MIN_RETENTION = 100;
/** The mean entry size follows about the last this many entries. */
const MEAN_WINDOW = 1000;

/** Stores a long page text under an object key (object storage). */
export type TextStore = (key: string, text: string) => Promise<void>;

export interface PagePublisherOptions {
  prefix: string;
  /** FEED_PARTITIONS: a page goes to partition `pagePartition(url_fp)`. */
  partitions: number;
  /** FEED_MAX_LEN: each partition is trimmed to about this many entries (read ones only). */
  maxLen: number;
  /** FEED_INLINE_TEXT_BYTES: longer texts go to object storage and are referenced. */
  inlineTextBytes: number;
  /**
   * FEED_MAX_BYTES: what the whole feed may hold, bytes; each partition keeps its share at the
   * measured mean entry size (and at most `maxLen` entries). Absent: `maxLen` alone.
   */
  maxBytes?: number;
  /** FEED_OVERFLOW: `hold` (default) keeps what a group has not read; `drop` trims it, counted. */
  overflow?: FeedOverflow;
  /**
   * Consumer groups the feed keeps pages for even before they exist (created where missing):
   * the coordinator's `ingest` in a coordinated crawl. Default none.
   */
  groups?: readonly string[];
  /** Called when the feed starts or stops holding leasing back ({@link PagePublisher.holdsLeasing}). */
  onHoldChange?: (hold: boolean, pressure: FeedPressure) => void;
}

/**
 * Publishes parsed pages to the `pages.parsed` feed: one stream entry per page (field `page`,
 * JSON), in the partition of its url_fp, so every capture of a URL stays in order. Entries are
 * buffered and written in batches; a text over the inline cap is stored first and referenced,
 * so a message never points at an object that is not there.
 *
 * Retention is the trim's (`trim()`: every second once `start()`ed, and at each `flush()`):
 * each partition down to {@link retention} entries, never below what a registered consumer
 * group still needs (FeedRetention). While unread pages near the bound, {@link holdsLeasing}
 * says so: the agent takes no new lease until the slowest group reads on.
 */
export class PagePublisher {
  private readonly writer: BufferedWriter<{ partition: number; json: Buffer }>;
  private readonly feed: FeedRetention;
  /** Mean bytes an entry costs Redis (its JSON and the stream's share), 0 before the first. */
  private entryBytes = 0;
  private entries = 0;
  /** Mean bytes an entry costs as Redis measured it at the last trim (0: empty, or none yet). */
  private storedEntryBytes = 0;
  private latest: FeedPressure | null = null;
  private trimming: Promise<FeedPressure> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    redis: RedisClient,
    private readonly opts: PagePublisherOptions,
    private readonly storeText: TextStore,
    private readonly onError: (err: unknown) => void,
  ) {
    this.feed = new FeedRetention(redis, {
      prefix: opts.prefix,
      partitions: opts.partitions,
      overflow: opts.overflow ?? 'hold',
      groups: opts.groups ?? [],
    });
    this.writer = new BufferedWriter(
      async (batch) => {
        // Concurrent commands: ioredis pipelines them (per node on a cluster) on its own.
        await Promise.all(
          batch.map(({ partition, json }) =>
            redis.xadd(pagesStreamKey(opts.prefix, partition), '*', 'page', json),
          ),
        );
      },
      onError,
      200,
      100,
    );
  }

  /** Queues a page; its text goes inline or, when longer than the cap, to object storage. */
  async publish(
    page: Omit<ParsedPageMessage, 'text' | 'text_ref' | 'text_bytes'>,
    text: string,
  ): Promise<void> {
    await this.publishEncoded(page, {
      json: Buffer.from(JSON.stringify(text)),
      bytes: Buffer.byteLength(text),
    });
  }

  /**
   * {@link publish} with the text already encoded as a JSON string literal in UTF-8 (the parse
   * worker does it): the message is spliced around it, so the event loop neither escapes nor
   * re-encodes a page's text.
   */
  async publishEncoded(
    page: Omit<ParsedPageMessage, 'text' | 'text_ref' | 'text_bytes'>,
    text: { json: Uint8Array; bytes: number },
  ): Promise<void> {
    let json: Buffer;
    if (text.bytes > this.opts.inlineTextBytes) {
      const ref = `text/${page.content_hash.slice(0, 2)}/${page.content_hash}.txt`;
      await this.storeText(ref, JSON.parse(Buffer.from(text.json).toString('utf8')) as string);
      const message: ParsedPageMessage = {
        ...page,
        text: '',
        text_ref: ref,
        text_bytes: text.bytes,
      };
      json = Buffer.from(JSON.stringify(message));
    } else {
      const rest: Omit<ParsedPageMessage, 'text'> = {
        ...page,
        text_ref: '',
        text_bytes: text.bytes,
      };
      const head = JSON.stringify(rest);
      json = Buffer.concat([Buffer.from(`${head.slice(0, -1)},"text":`), text.json, CLOSE_BRACE]);
    }
    this.measure(json.length);
    this.writer.push({ partition: pagePartition(page.url_fp, this.opts.partitions), json });
  }

  /**
   * Entries each partition is trimmed to now ({@link trim}): FEED_MAX_LEN, or fewer when
   * that many entries of the measured mean size would pass the partition's share of
   * FEED_MAX_BYTES (at least {@link MIN_RETENTION}). Without consumer groups Redis trims whole
   * stream nodes, so a partition may hold up to one node (100 entries) more; with groups the
   * trim is exact, and stops at the oldest entry a group still needs.
   */
  retention(): number {
    const maxBytes = this.opts.maxBytes ?? 0;
    // Before its first page, an agent goes by what Redis holds (a restarted agent, a held feed).
    const entryBytes = this.entryBytes || this.storedEntryBytes;
    if (maxBytes <= 0 || entryBytes === 0) return this.opts.maxLen;
    const fit = Math.floor(maxBytes / this.opts.partitions / entryBytes);
    return Math.min(this.opts.maxLen, Math.max(MIN_RETENTION, fit));
  }

  /**
   * True while this agent must take no new lease: the pages some registered consumer group has
   * not read reach 90% of FEED_MAX_BYTES (FEED_OVERFLOW=hold), as of the latest trim.
   */
  get holdsLeasing(): boolean {
    return this.latest?.hold ?? false;
  }

  /** The feed as the latest trim saw it (null before the first). */
  get pressure(): FeedPressure | null {
    return this.latest;
  }

  /** Trims every `everyMs` (default 1 s) until {@link stop}; failures go to `onError`. */
  start(everyMs = 1000): void {
    this.timer ??= setInterval(() => void this.trim().catch(this.onError), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Trims every partition to {@link retention} (never past what a registered group still needs)
   * and updates {@link holdsLeasing}. One trim at a time: a call during one waits for it.
   */
  trim(): Promise<FeedPressure> {
    this.trimming ??= this.trimOnce().finally(() => (this.trimming = null));
    return this.trimming;
  }

  private async trimOnce(): Promise<FeedPressure> {
    const states = await this.feed.trim(this.retention());
    this.storedEntryBytes = meanStoredBytes(states);
    const pressure = feedPressure(states, {
      maxBytes: this.opts.maxBytes ?? Number.MAX_SAFE_INTEGER,
      maxLen: this.opts.maxLen,
      overflow: this.opts.overflow ?? 'hold',
    });
    const was = this.holdsLeasing;
    this.latest = pressure;
    if (pressure.hold !== was) this.opts.onHoldChange?.(pressure.hold, pressure);
    return pressure;
  }

  /** Mean bytes per entry so far (what {@link retention} divides by). */
  get meanEntryBytes(): number {
    return Math.round(this.entryBytes);
  }

  private measure(jsonBytes: number): void {
    const bytes = jsonBytes * (1 + STREAM_ENTRY_OVERHEAD_SHARE) + STREAM_ENTRY_OVERHEAD_BYTES;
    this.entries = Math.min(this.entries + 1, MEAN_WINDOW);
    this.entryBytes += (bytes - this.entryBytes) / this.entries;
  }

  /**
   * Resolves when every page published so far is in Redis (or re-queued after a failure), and
   * the feed trimmed after them.
   */
  async flush(): Promise<void> {
    await this.writer.flush();
    await this.trim().catch(this.onError);
  }

  /** Resolves once every page pushed so far is in Redis (retried until it is). */
  settled(): Promise<void> {
    return this.writer.settled();
  }
}

/** Mean bytes Redis spends on an entry, over the partitions that hold any. */
function meanStoredBytes(states: readonly FeedPartitionState[]): number {
  let length = 0;
  let bytes = 0;
  for (const s of states) {
    length += s.length;
    bytes += s.bytes;
  }
  return length > 0 ? bytes / length : 0;
}
