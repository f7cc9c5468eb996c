import type { LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { headerValue, type HttpResponse } from '../fetch/http-client';
import { ParsePoolError } from '../parse/parse-pool';
import type { PageTaskResult } from '../parse/page-task';
import {
  archiveResponse,
  recordStored,
  toExchange,
  type ArchivedResponse,
  type ArchivePlan,
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
 * How the page is archived: stored in full per `plan` (its records are built in the worker,
 * with the parse), or already archived (a revisit whose links are still news).
 */
export type HtmlArchive = { plan: ArchivePlan } | { archived: ArchivedResponse };

/**
 * Handles a fetched HTML page off the event loop: one worker task builds its WARC records
 * (when it is stored in full), parses it, normalizes its links and encodes its text; here the
 * records are appended, the links enqueued (their hosts' DNS resolved ahead of their leases)
 * and the page published to the `pages.parsed` feed (a noindex page without its text). When
 * the worker fails, the page is still archived here, with a `parse_<code>` error.
 */
export async function followHtml(
  r: AgentResources,
  host: string,
  entry: LeasedUrl,
  res: HttpResponse,
  fetchedAt: Date,
  how: HtmlArchive,
): Promise<{ archived: ArchivedResponse; html: HtmlOutcome }> {
  const plan = 'plan' in how ? how.plan : null;
  const already = 'archived' in how ? how.archived : null;
  let result: PageTaskResult;
  try {
    const { body: _body, ...exchange } = toExchange(res, fetchedAt);
    result = await r.parsePool.page({
      page: {
        url: entry.url,
        body: res.body,
        contentType: headerValue(res.headers, 'content-type') ?? '',
        xRobotsTag: res.headers
          .filter(([k]) => k.toLowerCase() === 'x-robots-tag')
          .map(([, v]) => v),
        productToken: r.config.CRAWLER_UA_TOKEN,
        contentSha256: plan?.contentHash ?? already?.contentHash ?? '',
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
      record: plan ? { exchange, gzipLevel: r.warc.gzipLevel } : null,
    });
  } catch (err) {
    if (!(err instanceof ParsePoolError)) throw err;
    const archived = already ?? (await archiveResponse(r, res, fetchedAt, entry.prior, plan!));
    return { archived, html: { errorCode: `parse_${err.reason}`, simhash: '', title: '' } };
  }
  const archived =
    already ??
    (await recordStored(r, res, fetchedAt, plan!, await r.warc.writeBuiltExchange(result.record!)));

  const { page, found } = result;
  // A page that answers like the host's missing pages: neither followed nor fed.
  const quality = r.quality.get(host);
  const soft404 = quality?.isSoft404(res.status, page.simhash, page.title) ?? false;
  // What its links bring that the host's pages did not link recently (the novelty rule).
  const novelty = quality && !soft404 ? r.quality.novelty(host, entry, found.urls) : null;
  const judged = quality?.judgePage(
    entry.url,
    { simhash: page.simhash, title: page.title, textShape: result.textShape, novelty },
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
    { json: result.textJson, bytes: result.textBytes },
  );
  return { archived, html: { errorCode: '', simhash: page.simhash, title: page.title } };
}
