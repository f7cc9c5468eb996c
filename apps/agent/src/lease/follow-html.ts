import type { LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { headerValue, type HttpResponse } from '../fetch/http-client';
import { discoverLinks } from '../parse/discover-links';
import { toExtractedPage } from '../parse/parse-page';
import { ParsePoolError } from '../parse/parse-pool';
import type { ArchivedResponse } from './archive-response';
import { trapDrops } from './lease-run';

/** What parsing a page adds to its telemetry row. */
export interface HtmlOutcome {
  /** `parse_<code>` when the page could not be parsed, else ''. */
  errorCode: string;
  simhash: string;
}

/**
 * Parses an HTML page in the worker pool, enqueues its links (normalized, trap rules, nofollow),
 * has their hosts' DNS resolved ahead of their leases, and publishes the page to the
 * `pages.parsed` feed (a noindex page without its text).
 */
export async function followHtml(
  r: AgentResources,
  host: string,
  entry: LeasedUrl,
  res: HttpResponse,
  archived: ArchivedResponse,
  fetchedAt: Date,
): Promise<HtmlOutcome> {
  let page;
  try {
    // The body moves to the worker (no copy): it is archived and hashed by now, and the
    // telemetry row has its length, so nothing reads it here afterwards.
    page = await r.parsePool.parse(
      {
        url: entry.url,
        body: res.body,
        contentType: headerValue(res.headers, 'content-type') ?? '',
        xRobotsTag: res.headers
          .filter(([k]) => k.toLowerCase() === 'x-robots-tag')
          .map(([, v]) => v),
        productToken: r.config.CRAWLER_UA_TOKEN,
        contentSha256: archived.contentHash,
      },
      { transfer: true },
    );
  } catch (err) {
    if (!(err instanceof ParsePoolError)) throw err;
    return { errorCode: `parse_${err.code}`, simhash: '' };
  }
  const found = discoverLinks(entry.url, toExtractedPage(page), entry.depth, {
    maxUrlLength: 2048,
    maxPathSegments: 16,
    maxDepth: r.settings.maxDepth(),
  });
  r.counters.trapRefused += trapDrops(found.dropped);
  if (found.urls.length > 0) {
    // Hosts met now are likely leased soon: have their addresses ready by then.
    r.http.prefetchDns(found.urls.map((u) => u.host));
    await r.links.add(found.urls);
  }
  const noindex = page.robots.noindex;
  await r.pages.publish(
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
      noindex,
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
    noindex ? '' : page.text,
  );
  return { errorCode: '', simhash: page.simhash };
}
