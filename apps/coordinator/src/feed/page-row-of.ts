import type { PageRow } from '@crawler/analytics';
import type { ParsedPageMessage } from '@crawler/domain/messages';

/** A feed message as a row of the `pages` table (links split into URLs and nofollow flags). */
export function pageRowOf(m: ParsedPageMessage): PageRow {
  const { links, fetched_at, ...page } = m;
  return {
    ...page,
    fetched_at: new Date(fetched_at),
    out_links: links.map((l) => l.url),
    out_links_nofollow: links.map((l) => l.nofollow),
  };
}
