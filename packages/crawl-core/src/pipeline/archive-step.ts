import type { LeasedUrl } from '@crawler/frontier';
import { headerValue, type HttpResponse } from '../fetch/http-client';
import {
  archiveInput,
  archiveResponse,
  placeArchive,
  type ArchivedResponse,
} from '../archive/archive-response';
import { isWarcWriteFailure, warcWriteFailed } from '../archive/warc-failure';
import { ParsePoolError } from '../parse/parse-pool';
import type { PageParse, PageTaskResult } from '../parse/page-task';
import { isSitemapDocument } from '../parse/is-sitemap-document';
import { next, type ArchivedUrl, type FetchedUrl, type Step } from './url-context';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** A whole 2xx HTML page (not a sitemap): parsed, its links followed, published to the feed. */
export function isHtmlPage(res: HttpResponse, entry: LeasedUrl): boolean {
  return (
    res.status >= 200 &&
    res.status < 300 &&
    HTML_TYPES.has(res.contentType) &&
    !res.truncated &&
    !isSitemapDocument(entry, res)
  );
}

/**
 * The response into WARC (archive/archive-response.ts): its SHA-256, revisit decision, digests
 * and gzip in a parse-pool worker; on the event loop the content index is asked and the bytes
 * appended. An HTML page goes to the worker as one task that archives and parses it (one
 * hand-off a page; the parse step then judges what the worker found). A failed WARC write
 * (disk full) leaves a row pointing at no record, and the URL is retried later.
 */
export const archiveStep: Step<FetchedUrl, ArchivedUrl> = {
  name: 'archive',
  runsIn: 'parse-pool',
  async run(ctx) {
    const { r, entry, res, base } = ctx;
    try {
      if (isHtmlPage(res, entry)) return next({ ...ctx, ...(await archivePage(ctx)) });
      const archived = await archiveResponse(r, res, base.fetchedAt, entry.prior);
      return next({ ...ctx, archived, parse: null, parseError: '' });
    } catch (err) {
      // Disk full or failing: no record, so no row may point at one; the lease fails here.
      if (!isWarcWriteFailure(err)) throw err;
      return { kind: 'retry', ...warcWriteFailed(r, base, res, err).retry };
    }
  },
};

/**
 * An HTML page archived and parsed in one worker task. A page that repeats a capture whose links
 * were already followed — the URL's own prior one — is archived as a revisit and not parsed; a
 * copy of another URL's body is followed (its relative links may lead elsewhere), and so is a
 * copy of this URL's own earlier capture that is not the prior its entry carries (an agent
 * killed after archiving the page, before its links were written). When the worker fails, the
 * page is still archived, with a `parse_<code>` error.
 */
async function archivePage(
  ctx: FetchedUrl,
): Promise<{ archived: ArchivedResponse; parse: PageParse | null; parseError: string }> {
  const { r, entry, res, base } = ctx;
  const archive = archiveInput(r, res, base.fetchedAt, entry.prior);
  let result: PageTaskResult;
  try {
    result = await r.parsePool.page({
      page: {
        url: entry.url,
        body: res.body,
        contentType: headerValue(res.headers, 'content-type') ?? '',
        xRobotsTag: res.headers
          .filter(([k]) => k.toLowerCase() === 'x-robots-tag')
          .map(([, v]) => v),
        productToken: r.config.CRAWLER_UA_TOKEN,
      },
      depth: entry.depth,
      hops: entry.hops,
      limits: {
        maxUrlLength: 2048,
        maxPathSegments: 16,
        maxDepth: r.settings.maxDepth(),
        maxHops: r.config.CRAWLER_MAX_HOPS,
      },
      parseMaxBytes: r.config.PARSE_MAX_BYTES,
      archive,
    });
  } catch (err) {
    if (!(err instanceof ParsePoolError)) throw err;
    const archived = await archiveResponse(r, res, base.fetchedAt, entry.prior);
    return { archived, parse: null, parseError: `parse_${err.reason}` };
  }
  const archived = await placeArchive(
    r,
    res,
    base.fetchedAt,
    { ...archive, body: res.body },
    result.archive!,
  );
  const followed =
    archived.recordType === 'response' ||
    archived.duplicateOf !== '' ||
    archived.refersTo !== entry.prior?.recordId;
  return { archived, parse: followed ? result.parsed : null, parseError: '' };
}
