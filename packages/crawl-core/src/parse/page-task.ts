import { createHash } from 'node:crypto';
import type { TrapLimits } from '@crawler/domain/traps';
import {
  archiveTask,
  type ArchiveTaskInput,
  type ArchiveTaskResult,
} from '../archive/archive-task';
import { discoverLinks, type DiscoveredLinks } from './discover-links';
import { parsePage, toExtractedPage, type ParsedPage, type ParsePageInput } from './parse-page';

/** One fetched HTML page, for everything CPU-bound the agent does with it off the event loop. */
export interface PageTaskInput {
  page: ParsePageInput;
  /** The page's hops from a seed: its links are one more. */
  depth: number;
  /** The page's same-host hops from a page another host links to (its queue entry's). */
  hops: number;
  /** Trap limits the page's links are checked against. */
  limits: TrapLimits;
  /** Most bytes of the body parsed (PARSE_MAX_BYTES); the record keeps the whole body. */
  parseMaxBytes?: number;
  /**
   * When the page is to be archived: its exchange (the body is `page.body`), to hash it and
   * build its WARC records here ({@link archiveTask}); null for a page archived elsewhere.
   */
  archive: Omit<ArchiveTaskInput, 'body'> | null;
}

/** What {@link pageTask} gives back: the archive's records and decision, and the parse. */
export interface PageTaskResult {
  /** When asked for: how the page is archived, with its records. */
  archive: ArchiveTaskResult | null;
  /** The parse; null for a page that repeats the URL's own prior capture (no news in it). */
  parsed: PageParse | null;
}

/** A page's parse: small, plain data, and the bulky parts pre-encoded. */
export interface PageParse {
  /** The parsed page without its text and raw links (see `textJson` and `found`). */
  page: Omit<ParsedPage, 'text' | 'links'>;
  /**
   * The text the feed carries — the page's main text, none for a noindex page — as a JSON
   * string literal in UTF-8, ready to splice into the feed message.
   */
  textJson: Uint8Array;
  /** UTF-8 length of that text (not of its JSON form). */
  textBytes: number;
  /** The page's links: normalized, deduplicated, trap rules applied. */
  found: DiscoveredLinks;
  /**
   * Digest of the page's text with digit runs abstracted (16 hex): pages that differ only in
   * their numbers (a calendar's months, a pager's empty pages) share it.
   */
  textShape: string;
}

/**
 * Hashes the page and builds its WARC records (when asked), then parses it, discovers its links
 * and encodes its text for the feed: the work that would otherwise hold the agent's event loop
 * for most of a page's CPU time. A page identical to the URL's prior capture is not parsed (its
 * links were followed then). Pure: the same input gives the same result (but for record ids).
 */
export async function pageTask(input: PageTaskInput): Promise<PageTaskResult> {
  const archive = input.archive
    ? await archiveTask({ ...input.archive, body: input.page.body })
    : null;
  if (archive?.ofPrior) return { archive, parsed: null };
  const body = input.page.body;
  const max = input.parseMaxBytes ?? body.byteLength;
  const { text, links, ...page } = parsePage({
    ...input.page,
    ...(archive ? { contentSha256: archive.contentHash } : {}),
    ...(body.byteLength > max ? { body: body.subarray(0, max) } : {}),
  });
  const found = discoverLinks(
    input.page.url,
    toExtractedPage({ ...page, text: '', links }),
    input.depth,
    input.limits,
    input.hops,
  );
  const fed = page.robots.noindex ? '' : text;
  return {
    archive,
    parsed: {
      page,
      textJson: Buffer.from(JSON.stringify(fed)),
      textBytes: Buffer.byteLength(fed),
      found,
      textShape: textShapeOf(text),
    },
  };
}

/** SHA-1 of the text with every digit run as `#`, 16 hex characters ('' for no text). */
export function textShapeOf(text: string): string {
  if (text.trim() === '') return '';
  return createHash('sha1').update(text.replace(/\d+/g, '#')).digest('hex').slice(0, 16);
}
