import { z } from 'zod';

/**
 * One parsed page as the downstream feed carries it (`pages.parsed`): what search indexers and
 * training-data pipelines read. Written by agents, validated by every reader. The text is inline
 * up to a cap; a longer text is stored in object storage and referenced by `text_ref`.
 */
export const parsedPageSchema = z.object({
  url_fp: z.string().regex(/^[0-9a-f]{16}$/),
  url: z.string().min(1).max(8192),
  host: z.string().min(1).max(253),
  /** Epoch ms of the fetch. */
  fetched_at: z.number().int().positive(),
  status: z.number().int().min(100).max(999),
  content_type: z.string().max(200),
  /** WHATWG name of the charset the body was decoded with. */
  charset: z.string().max(64),
  title: z.string().max(4096),
  description: z.string().max(4096),
  /** Primary language subtag, or '' when unknown. */
  lang: z.string().max(16),
  /** The main text inline, or '' when it is stored by reference (`text_ref`). */
  text: z.string(),
  /** Object-storage key of the text (UTF-8) when it is over the inline cap, else ''. */
  text_ref: z.string().max(1024),
  /** Length of the whole text in UTF-8 bytes, inline or not. */
  text_bytes: z.number().int().min(0),
  /** `<link rel=canonical>`, normalized, or ''. */
  canonical: z.string().max(8192),
  noindex: z.boolean(),
  nofollow: z.boolean(),
  /** Out-links, normalized, in document order (at most 1000), with their rel=nofollow flag. */
  links: z.array(z.object({ url: z.string().max(8192), nofollow: z.boolean() })).max(1000),
  /** SHA-256 (hex) of the raw body and 64-bit SimHash (16 hex) of the text. */
  content_hash: z.string().regex(/^[0-9a-f]{64}$/),
  simhash: z.string().regex(/^[0-9a-f]{16}$/),
  /** Against the URL's prior capture: 'new', 'changed' or 'unchanged'. */
  change: z.enum(['new', 'changed', 'unchanged']),
  /** Where the raw response is archived (CDX fields). */
  warc_key: z.string().max(500),
  warc_offset: z.number().int().min(0),
  warc_length: z.number().int().min(0),
  record_id: z.string().max(100),
  depth: z.number().int().min(0).max(65535),
  agent_id: z.string().max(64),
});
export type ParsedPageMessage = z.infer<typeof parsedPageSchema>;

/**
 * The feed is partitioned: a page goes to partition `url_fp mod partitions` (the first 8 hex
 * digits read as a number), so all captures of a URL stay in order in one stream.
 */
export function pagePartition(urlFp: string, partitions: number): number {
  return Number.parseInt(urlFp.slice(0, 8), 16) % partitions;
}

/** Stream key of one partition of the feed: `${prefix}:pages.parsed:{n}` (its own cluster slot). */
export function pagesStreamKey(prefix: string, partition: number): string {
  return `${prefix}:pages.parsed:{${partition}}`;
}
