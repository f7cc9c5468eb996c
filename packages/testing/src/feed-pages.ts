import { createHash } from 'node:crypto';
import { pagePartition, pagesStreamKey, type ParsedPageMessage } from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';

/** The url_fp of test page `i` (16 hex digits, spread evenly over partitions). */
export function testPageFp(i: number): string {
  return createHash('sha256').update(`page-${i}`).digest('hex').slice(0, 16);
}

/** A valid feed message for test page `i`. */
export function testPage(i: number, overrides: Partial<ParsedPageMessage> = {}): ParsedPageMessage {
  const host = `h${i % 13}.example`;
  const url = `https://${host}/p/${i}`;
  return {
    url_fp: testPageFp(i),
    url,
    host,
    fetched_at: Date.UTC(2026, 10, 30, 12) + i,
    status: 200,
    content_type: 'text/html',
    charset: 'utf-8',
    title: `Page ${i}`,
    description: `About page ${i}`,
    lang: 'en',
    text: `The text of page ${i}.`,
    text_ref: '',
    text_bytes: Buffer.byteLength(`The text of page ${i}.`),
    canonical: url,
    noindex: false,
    nofollow: false,
    links: [
      { url: `https://${host}/p/${i + 1}`, nofollow: false },
      { url: 'https://elsewhere.example/', nofollow: true },
    ],
    content_hash: createHash('sha256').update(`body-${i}`).digest('hex'),
    simhash: testPageFp(i + 1_000_000),
    change: 'new',
    warc_key: 'crawl/2026-11-30/agent-1/00000.warc.gz',
    warc_offset: i * 1000,
    warc_length: 900,
    record_id: `<urn:uuid:00000000-0000-0000-0000-${String(i).padStart(12, '0')}>`,
    depth: 1,
    agent_id: 'agent-1',
    ...overrides,
  };
}

/**
 * Publishes pages the way agents do: one entry per page, field `page` = the JSON message, in the
 * partition of its url_fp, trimmed with `MAXLEN ~ maxLen`. Returns the entry ids in order.
 */
export async function publishTestPages(
  redis: RedisClient,
  opts: { prefix: string; partitions: number; maxLen?: number },
  pages: readonly ParsedPageMessage[],
): Promise<string[]> {
  const maxLen = String(opts.maxLen ?? 100_000);
  const ids = await Promise.all(
    pages.map((page) =>
      redis.xadd(
        pagesStreamKey(opts.prefix, pagePartition(page.url_fp, opts.partitions)),
        'MAXLEN',
        '~',
        maxLen,
        '*',
        'page',
        JSON.stringify(page),
      ),
    ),
  );
  return ids.map(String);
}
