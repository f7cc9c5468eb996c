import { pagePartition, pagesStreamKey, type ParsedPageMessage } from '@crawler/shared/messages';
import type { RedisClient } from '@crawler/shared/redis';
import { BufferedWriter } from '../streams/buffered-writer';

const CLOSE_BRACE = Buffer.from('}');

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
}

/**
 * Publishes parsed pages to the `pages.parsed` feed: one stream entry per page (field `page`,
 * JSON), in the partition of its url_fp, so every capture of a URL stays in order. Entries are
 * buffered and written in batches; a text over the inline cap is stored first and referenced,
 * so a message never points at an object that is not there.
 */
export class PagePublisher {
  private readonly writer: BufferedWriter<{ partition: number; json: Buffer }>;

  constructor(
    redis: RedisClient,
    private readonly opts: PagePublisherOptions,
    private readonly storeText: TextStore,
    onError: (err: unknown) => void,
  ) {
    const maxLen = String(opts.maxLen);
    this.writer = new BufferedWriter(
      async (batch) => {
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
    this.writer.push({ partition: pagePartition(page.url_fp, this.opts.partitions), json });
  }

  /** Resolves when every page published so far is in Redis (or re-queued after a failure). */
  flush(): Promise<void> {
    return this.writer.flush();
  }
}
