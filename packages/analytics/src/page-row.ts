import { z } from 'zod';
import type { ClickHouseBackend } from './clickhouse-backend';
import { encodeRows, parseClickhouseDateTime } from './encode-rows';

/** One parsed page (a capture's text and metadata), a row of the `pages` table. */
export interface PageRow {
  url_fp: string;
  url: string;
  host: string;
  /** When the page was fetched; with url_fp the identity of the row. */
  fetched_at: Date;
  status: number;
  content_type: string;
  /** Charset the body was decoded with. */
  charset: string;
  title: string;
  description: string;
  /** Primary language subtag, or ''. */
  lang: string;
  /** The main text, or '' when it is in object storage under `text_ref`. */
  text: string;
  text_ref: string;
  /** Length of the whole text in UTF-8 bytes, inline or not. */
  text_bytes: number;
  canonical: string;
  noindex: boolean;
  nofollow: boolean;
  /** Out-links in document order, with their rel=nofollow flags (same length). */
  out_links: string[];
  out_links_nofollow: boolean[];
  /** SimHash of the text (16 hex) and SHA-256 of the body (64 hex). */
  simhash: string;
  content_hash: string;
  /** 'new', 'changed' or 'unchanged' against the URL's previous capture. */
  change: 'new' | 'changed' | 'unchanged';
  warc_key: string;
  warc_offset: number;
  warc_length: number;
  record_id: string;
  depth: number;
  agent_id: string;
}

const uint = (max: number) => z.number().int().min(0).max(max);

/** The zod schema every row of `pages` passes before it is inserted. */
export const pageRowSchema = z
  .object({
    url_fp: z.string().min(1).max(128),
    url: z.string().min(1),
    host: z.string().min(1).max(255),
    fetched_at: z.date(),
    status: uint(999),
    content_type: z.string().max(255),
    charset: z.string().max(64),
    title: z.string(),
    description: z.string(),
    lang: z.string().max(35),
    text: z.string(),
    text_ref: z.string().max(1024),
    text_bytes: uint(0xffff_ffff),
    canonical: z.string(),
    noindex: z.boolean(),
    nofollow: z.boolean(),
    out_links: z.array(z.string()).max(0xffff),
    out_links_nofollow: z.array(z.boolean()).max(0xffff),
    simhash: z.string().regex(/^([0-9a-f]{16})?$/, '16 hex digits or ""'),
    content_hash: z.string().regex(/^([0-9a-f]{64})?$/, 'sha256 hex or ""'),
    change: z.enum(['new', 'changed', 'unchanged']),
    warc_key: z.string().max(1024),
    warc_offset: uint(Number.MAX_SAFE_INTEGER),
    warc_length: uint(0xffff_ffff),
    record_id: z.string().max(100),
    depth: uint(0xffff),
    agent_id: z.string().max(128),
  })
  .refine((r) => r.out_links.length === r.out_links_nofollow.length, {
    message: 'out_links and out_links_nofollow differ in length',
    path: ['out_links_nofollow'],
  }) satisfies z.ZodType<PageRow>;

/** Columns of `pages` in the order {@link encodePageRows} writes them. */
export const PAGE_COLUMNS = [...Object.keys(pageRowSchema.shape), 'links_count'];

/**
 * Validates every row (all or nothing) and encodes them as one JSONCompactEachRow payload in the
 * order of {@link PAGE_COLUMNS}.
 * @throws AnalyticsError `ANALYTICS_BAD_ROW` naming the first bad row's index and field.
 */
export function encodePageRows(rows: readonly PageRow[]): Promise<Buffer> {
  const fields = Object.keys(pageRowSchema.shape) as (keyof PageRow)[];
  return encodeRows('pages', pageRowSchema, rows, (row) => [
    ...fields.map((c) => (c === 'fetched_at' ? row.fetched_at.getTime() : row[c])),
    row.out_links.length,
  ]);
}

const READ_PAGES_SQL = `
SELECT url_fp, url, host, fetched_at, status, content_type, charset, title, description, lang,
       text, text_ref, text_bytes, canonical, noindex, nofollow, out_links, out_links_nofollow,
       simhash, content_hash, change, warc_key, warc_offset, warc_length, record_id, depth, agent_id
FROM pages FINAL
WHERE url_fp = {fp:String}
ORDER BY fetched_at DESC
LIMIT {limit:UInt32}
SETTINGS do_not_merge_across_partitions_select_final = 1`;

/** The parsed captures of a URL, newest first (at most `limit`, default 10). */
export async function readPages(
  db: ClickHouseBackend,
  urlFp: string,
  limit = 10,
): Promise<PageRow[]> {
  const rows = await db.queryRows<Record<string, unknown>>(READ_PAGES_SQL, { fp: urlFp, limit });
  return rows.map((r) => ({
    ...(r as unknown as PageRow),
    fetched_at: parseClickhouseDateTime(String(r.fetched_at)),
    status: Number(r.status),
    text_bytes: Number(r.text_bytes),
    noindex: Boolean(r.noindex),
    nofollow: Boolean(r.nofollow),
    warc_offset: Number(r.warc_offset),
    warc_length: Number(r.warc_length),
    depth: Number(r.depth),
  }));
}
