import type { LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { headerValue, type HttpResponse } from '../fetch/http-client';
import { ParsePoolError } from '../parse/parse-pool';
import type { PageTaskResult } from '../parse/page-task';
import {
  archiveInput,
  archiveResponse,
  placeArchive,
  type ArchivedResponse,
} from './archive-response';
import { trapDropsByRule } from './lease-run';
import { screenLinks } from '../quality/screen-urls';

/** What parsing a page adds to its telemetry row. */
export interface HtmlOutcome {
  /** `parse_<code>` when the page could not be parsed, `soft_404` for a soft 404, else ''. */
  errorCode: string;
  simhash: string;
  title: string;
}

/**
 * Archives and follows a fetched HTML page off the event loop: one worker task hashes it,
 * builds its WARC records and parses it (its links normalized, its text encoded); here the
 * content index is asked, the records appended, the links enqueued (their hosts' DNS resolved
 * ahead of their leases) and the page published to the `pages.parsed` feed (a noindex page
 * without its text). A page that repeats a capture whose links were already followed — the
 * URL's own prior one — is archived as a revisit and not followed (`html` null); a copy of
 * another URL's body is followed (its relative links may lead elsewhere), and so is a copy of
 * this URL's own earlier capture that is not the prior its entry carries (an agent killed after
 * archiving the page, before its links were written). When the worker fails, the page is still
 * archived, with a `parse_<code>` error.
 */
export async function followHtml(
  r: AgentResources,
  host: string,
  entry: LeasedUrl,
  res: HttpResponse,
  fetchedAt: Date,
): Promise<{ archived: ArchivedResponse; html: HtmlOutcome | null }> {
  const archive = archiveInput(r, res, fetchedAt, entry.prior);
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
    const archived = await archiveResponse(r, res, fetchedAt, entry.prior);
    return { archived, html: { errorCode: `parse_${err.reason}`, simhash: '', title: '' } };
  }
  const archived = await placeArchive(
    r,
    res,
    fetchedAt,
    { ...archive, body: res.body },
    result.archive!,
  );
  const followed =
    archived.recordType === 'response' ||
    archived.duplicateOf !== '' ||
    archived.refersTo !== entry.prior?.recordId;
  if (!result.parsed || !followed) return { archived, html: null };

  const { page, found } = result.parsed;
  // A page that answers like the host's missing pages: neither followed nor fed.
  const quality = r.quality.get(host);
  const soft404 = quality?.isSoft404(res.status, page.simhash, page.title) ?? false;
  // What its links bring that the host's pages did not link recently (the novelty rule).
  const novelty = quality && !soft404 ? r.quality.novelty(host, entry, found.urls) : null;
  const judged = quality?.judgePage(
    entry.url,
    { simhash: page.simhash, title: page.title, textShape: result.parsed.textShape, novelty },
    soft404,
  );
  if (soft404) {
    r.quality.count(host, 'soft_404');
    r.counters.qualityRefused++;
    return { archived, html: { errorCode: 'soft_404', simhash: page.simhash, title: page.title } };
  }
  for (const [rule, n] of trapDropsByRule(found.dropped)) {
    r.counters.trapRefused += n;
    r.quality.count(host, rule, n);
  }
  const urls = screenLinks(r, host, { url: entry.url, stale: judged?.stale ?? false }, found.urls);
  if (urls.length > 0) {
    // Hosts met now are likely leased soon: have their addresses ready by then.
    r.http.prefetchDns(urls.map((u) => u.host));
    await r.links.add(urls);
  }
  await r.pages.publishEncoded(
    {
      url_fp: entry.urlFp,
      url: entry.url,
      host,
      fetched_at: fetchedAt.getTime(),
      status: res.status,
      content_type: res.contentType,
      charset: page.charset,
      title: page.title,
      description: page.description,
      lang: page.lang ?? '',
      canonical: page.canonical ?? '',
      noindex: page.robots.noindex,
      nofollow: page.robots.nofollow,
      links: found.outlinks,
      content_hash: archived.contentHash,
      simhash: page.simhash,
      change: archived.change === '' ? 'new' : archived.change,
      warc_key: archived.location.key,
      warc_offset: archived.location.offset,
      warc_length: archived.location.length,
      record_id: archived.location.recordId,
      depth: entry.depth,
      agent_id: r.config.agentId,
    },
    { json: result.parsed.textJson, bytes: result.parsed.textBytes },
  );
  return { archived, html: { errorCode: '', simhash: page.simhash, title: page.title } };
}
