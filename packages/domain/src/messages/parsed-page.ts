import { z } from 'zod';
import {
  agentIdField,
  contentTypeField,
  depthField,
  epochMsField,
  hostField,
  recordIdField,
  sha256Field,
  simhashField,
  uint,
  UINT32_MAX,
  urlField,
  urlFpField,
  warcKeyField,
} from './fields';

/** Out-links a page carries at most (the agent keeps the first ones, in document order). */
export const MAX_PAGE_LINKS = 1000;

/**
 * One parsed page as the downstream feed carries it (`pages.parsed`): what search indexers and
 * training-data pipelines read. Written by agents, validated by every reader, and stored as a row
 * of the ClickHouse `pages` table (its fields in the table's order; `links` is split there into
 * `links_count`, `out_links` and `out_links_nofollow`). The text is inline up to a cap; a longer
 * text is stored in object storage and referenced by `text_ref`.
 */
export const parsedPageSchema = z.object({
  url_fp: urlFpField,
  url: urlField.min(1),
  host: hostField,
  /** Epoch ms of the fetch; with url_fp the identity of the page. */
  fetched_at: epochMsField,
  /** A parsed page always had an HTTP answer. */
  status: z.number().int().min(100).max(999),
  content_type: contentTypeField,
  /** WHATWG name of the charset the body was decoded with. */
  charset: z.string().max(64),
  title: z.string().max(4096),
  description: z.string().max(4096),
  /** Primary language subtag, or '' when unknown (35: the longest BCP 47 tag ClickHouse took). */
  lang: z.string().max(35),
  /** The main text inline, or '' when it is stored by reference (`text_ref`). */
  text: z.string(),
  /** Object-storage key of the text (UTF-8) when it is over the inline cap, else ''. */
  text_ref: z.string().max(1024),
  /** Length of the whole text in UTF-8 bytes, inline or not. */
  text_bytes: uint(UINT32_MAX),
  /** `<link rel=canonical>`, normalized, or ''. */
  canonical: urlField,
  noindex: z.boolean(),
  nofollow: z.boolean(),
  /** Out-links, normalized, in document order, with their rel=nofollow flag. */
  links: z.array(z.object({ url: urlField, nofollow: z.boolean() })).max(MAX_PAGE_LINKS),
  /** 64-bit SimHash (16 hex) of the text and SHA-256 (hex) of the raw body. */
  simhash: simhashField,
  content_hash: sha256Field,
  /** Against the URL's prior capture: 'new', 'changed' or 'unchanged'. */
  change: z.enum(['new', 'changed', 'unchanged']),
  /** Where the raw response is archived (CDX fields). */
  warc_key: warcKeyField,
  warc_offset: z.number().int().min(0),
  warc_length: uint(UINT32_MAX),
  record_id: recordIdField,
  depth: depthField,
  agent_id: agentIdField,
});
export type ParsedPageMessage = z.infer<typeof parsedPageSchema>;

/**
 * The feed is partitioned: a page goes to partition `url_fp mod partitions` (the first 8 hex
 * digits read as a number), so all captures of a URL stay in order in one stream.
 */
export function pagePartition(urlFp: string, partitions: number): number {
  return Number.parseInt(urlFp.slice(0, 8), 16) % partitions;
}
