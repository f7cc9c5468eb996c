import { pagePartition, pagesStreamKey, type ParsedPageMessage } from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';
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
  /** FEED_MAX_LEN: each partition is trimmed to about this many entries. */
  maxLen: number;
  /** FEED_INLINE_TEXT_BYTES: longer texts go to object storage and are referenced. */
  inlineTextBytes: number;
  /**
   * FEED_MAX_BYTES: what the whole feed may hold, bytes; each partition keeps its share at the
   * measured mean entry size (and at most `maxLen` entries). Absent: `maxLen` alone.
   */
  maxBytes?: number;
}

/**
 * Publishes parsed pages to the `pages.parsed` feed: one stream entry per page (field `page`,
 * JSON), in the partition of its url_fp, so every capture of a URL stays in order. Entries are
 * buffered and written in batches; a text over the inline cap is stored first and referenced,
 * so a message never points at an object that is not there.
 */
export class PagePublisher {
  private readonly writer: BufferedWriter<{ partition: number; json: Buffer }>;
  /** Mean bytes an entry costs Redis (its JSON and the stream's share), 0 before the first. */
  private entryBytes = 0;
  private entries = 0;

  constructor(
    redis: RedisClient,
    private readonly opts: PagePublisherOptions,
    private readonly storeText: TextStore,
    onError: (err: unknown) => void,
  ) {
    this.writer = new BufferedWriter(
      async (batch) => {
        const maxLen = String(this.retention());
        // Concurrent commands: ioredis pipelines them (per node on a cluster) on its own.
        await Promise.all(
          batch.map(({ partition, json }) =>
            redis.xadd(
              pagesStreamKey(opts.prefix, partition),
              'MAXLEN',
              '~',
              maxLen,
              '*',
              'page',
              json,
            ),
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
   * Entries each partition is trimmed to now (`XADD … MAXLEN ~`): FEED_MAX_LEN, or fewer when
   * that many entries of the measured mean size would pass the partition's share of
   * FEED_MAX_BYTES (at least {@link MIN_RETENTION}). Redis trims whole stream nodes, so a
   * partition may hold up to one node (100 entries) more.
   */
  retention(): number {
    const maxBytes = this.opts.maxBytes ?? 0;
    if (maxBytes <= 0 || this.entryBytes === 0) return this.opts.maxLen;
    const fit = Math.floor(maxBytes / this.opts.partitions / this.entryBytes);
    return Math.min(this.opts.maxLen, Math.max(MIN_RETENTION, fit));
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

  /** Resolves when every page published so far is in Redis (or re-queued after a failure). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Resolves once every page pushed so far is in Redis (retried until it is). */
  settled(): Promise<void> {
    return this.writer.settled();
  }
}
