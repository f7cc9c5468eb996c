import { frontierEntry } from '@crawler/domain/url';
import { headerValue } from '../fetch/http-client';
import type { ArchivedResponse } from '../archive/archive-response';
import { trapDropsByRule } from '../lease/lease-run';
import { enqueueSitemapEntries } from '../parse/enqueue-sitemap-entries';
import { isSitemapDocument } from '../parse/is-sitemap-document';
import { screenLinks } from '../quality/screen-urls';
import { truncationCode } from '../telemetry/telemetry-row';
import { next, type LinkedUrl, type ParsedUrl, type Step } from './url-context';

/** A body to read links from: stored in full, or a duplicate of another URL (relative links differ). */
function bodyIsNews(a: ArchivedResponse): boolean {
  return a.recordType === 'response' || a.duplicateOf !== '';
}

/**
 * What the response brings to the frontier (through the enqueue batcher, where the seen-check,
 * the target host's robots.txt and its pace apply): a redirect's target (at the same depth, no
 * link hop; more than FETCH_MAX_REDIRECTS is `redirect_limit`), a sitemap document's entries
 * (parse/enqueue-sitemap-entries.ts, parsed in the parse pool), or a followed page's links
 * (the trap rules' drops counted by rule, the host's quality rules applied), their hosts' DNS
 * resolved ahead of their leases.
 */
export const linksStep: Step<ParsedUrl, LinkedUrl> = {
  name: 'links',
  runsIn: 'event-loop',
  async run(ctx) {
    const { r, host, entry, res, archived, parse, page } = ctx;
    let redirectTo = '';
    let errorCode =
      ctx.parseError || (page?.soft404 ? 'soft_404' : '') || truncationCode(res.truncated);
    if (res.status >= 300 && res.status < 400 && res.status !== 304) {
      const href = headerValue(res.headers, 'location');
      const target = href ? frontierEntry(href, entry.url) : null;
      if (target?.ok) {
        const to = target.entry;
        redirectTo = to.url;
        if (entry.redirects + 1 > r.config.FETCH_MAX_REDIRECTS) errorCode = 'redirect_limit';
        else {
          await r.links.add([
            {
              ...to,
              depth: entry.depth,
              redirects: entry.redirects + 1,
              source: 'redirect',
              // A redirect is no link hop; one to another host starts a new count.
              hops: to.host === host ? entry.hops : 0,
            },
          ]);
          r.http.prefetchDns([to.host]);
        }
      } else errorCode = 'bad_redirect';
    } else if (bodyIsNews(archived) && isSitemapDocument(entry, res)) {
      await enqueueSitemapEntries(r, entry, res.body);
    } else if (parse && page && !page.soft404) {
      for (const [rule, n] of trapDropsByRule(parse.found.dropped)) {
        r.counters.trapRefused += n;
        r.quality.count(host, rule, n);
      }
      const urls = screenLinks(r, host, { url: entry.url, stale: page.stale }, parse.found.urls);
      if (urls.length > 0) {
        // Hosts met now are likely leased soon: have their addresses ready by then.
        r.http.prefetchDns(urls.map((u) => u.host));
        await r.links.add(urls);
      }
    }
    return next({ ...ctx, redirectTo, errorCode });
  },
};
