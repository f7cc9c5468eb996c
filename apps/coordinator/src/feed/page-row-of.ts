import type { PageRow } from '@crawler/analytics';
import type { ParsedPageMessage } from '@crawler/domain/messages';

/** A feed message as a row of the `pages` table (links split into URLs and nofollow flags). */
export function pageRowOf(m: ParsedPageMessage): PageRow {
  return {
    url_fp: m.url_fp,
    url: m.url,
    host: m.host,
    fetched_at: new Date(m.fetched_at),
    status: m.status,
    content_type: m.content_type,
    charset: m.charset,
    title: m.title,
    description: m.description,
    lang: m.lang,
    text: m.text,
    text_ref: m.text_ref,
    text_bytes: m.text_bytes,
    canonical: m.canonical,
    noindex: m.noindex,
    nofollow: m.nofollow,
    out_links: m.links.map((l) => l.url),
    out_links_nofollow: m.links.map((l) => l.nofollow),
    simhash: m.simhash,
    content_hash: m.content_hash,
    change: m.change,
    warc_key: m.warc_key,
    warc_offset: m.warc_offset,
    warc_length: m.warc_length,
    record_id: m.record_id,
    depth: m.depth,
    agent_id: m.agent_id,
  };
}
