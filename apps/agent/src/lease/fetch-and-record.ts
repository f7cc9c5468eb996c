import { normalizeUrl, urlFingerprint, hostOf } from '@crawler/shared/url';
import type { LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { FetchError } from '../fetch/fetch-error';
import { headerValue } from '../fetch/http-client';
import { parseRetryAfterMs } from '../fetch/parse-retry-after';
import { enqueueSitemapEntries } from '../parse/enqueue-sitemap-entries';
import { toExtractedPage } from '../parse/parse-page';
import { ParsePoolError } from '../parse/parse-pool';
import { discoverLinks } from '../parse/discover-links';
import type { HostPacer } from './host-pacer';
import { archiveResponse, responseFields, telemetryRow } from './archive-response';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Statuses that mean "not now": the URL is retried later and the host backs off. */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

/** What the lease should do after a fetch: go on, or stop here and retry the URL later. */
export type FetchOutcome = { retry: null } | { retry: { error: string; retryAfterMs: number } };
const GO_ON: FetchOutcome = { retry: null };

/**
 * Fetches one URL and records everything about it: the exchange in WARC, one telemetry row,
 * redirect targets and discovered links back into the frontier (where the seen-check, the
 * target host's robots.txt and its pace apply).
 */
export async function fetchAndRecord(
  r: AgentResources,
  host: string,
  entry: LeasedUrl,
  pacer: HostPacer,
): Promise<FetchOutcome> {
  const fetchedAt = new Date();
  const base = { urlFp: entry.urlFp, url: entry.url, host, depth: entry.depth, fetchedAt };
  const started = performance.now();
  let res;
  try {
    res = await r.http.get(entry.url);
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    pacer.done(performance.now() - started);
    r.counters.errors++;
    r.telemetry.push(
      telemetryRow(r, base, {
        error_code: err.code,
        fetch_ms: Math.round(performance.now() - started),
      }),
    );
    return err.action === 'give_up' ? GO_ON : { retry: { error: err.code, retryAfterMs: 0 } };
  }
  pacer.done(res.fetchMs);
  r.counters.fetched++;
  r.counters.bytes += res.body.length;
  if (res.status >= 500 || res.truncated) r.counters.errors++;

  const archived = await archiveResponse(r, res, fetchedAt);
  let redirectTo = '';
  let errorCode =
    res.truncated === 'length'
      ? 'too_large'
      : res.truncated === 'time'
        ? 'total_timeout'
        : res.truncated
          ? 'disconnect'
          : '';

  if (res.status >= 300 && res.status < 400) {
    const href = headerValue(res.headers, 'location');
    const n = href ? normalizeUrl(href, entry.url) : null;
    if (n?.ok) {
      redirectTo = n.url;
      if (entry.redirects + 1 > r.config.FETCH_MAX_REDIRECTS) errorCode = 'redirect_limit';
      else {
        const { accepted } = await r.frontier.enqueue([
          {
            url: n.url,
            urlFp: urlFingerprint(n.url),
            host: hostOf(n.url),
            depth: entry.depth,
            redirects: entry.redirects + 1,
            source: 'redirect',
          },
        ]);
        r.counters.linksEnqueued += accepted;
      }
    } else errorCode = 'bad_redirect';
  } else if (res.status >= 200 && res.status < 300 && entry.source === 'sitemap-file') {
    r.counters.linksEnqueued += await enqueueSitemapEntries(r, entry, res.body);
  } else if (
    res.status >= 200 &&
    res.status < 300 &&
    HTML_TYPES.has(res.contentType) &&
    !res.truncated
  ) {
    let page;
    try {
      // The body is copied, not moved: the telemetry row below still reads its length.
      page = await r.parsePool.parse(
        {
          url: entry.url,
          body: res.body,
          contentType: headerValue(res.headers, 'content-type') ?? '',
          xRobotsTag: res.headers
            .filter(([k]) => k.toLowerCase() === 'x-robots-tag')
            .map(([, v]) => v),
          productToken: r.config.CRAWLER_UA_TOKEN,
        },
        { transfer: false },
      );
    } catch (err) {
      if (!(err instanceof ParsePoolError)) throw err;
      errorCode = `parse_${err.code}`;
    }
    const found = page
      ? discoverLinks(entry.url, toExtractedPage(page), entry.depth, {
          maxUrlLength: 2048,
          maxPathSegments: 16,
          maxDepth: r.config.CRAWLER_MAX_DEPTH,
        })
      : { urls: [] };
    if (found.urls.length > 0)
      r.counters.linksEnqueued += (await r.frontier.enqueue(found.urls)).accepted;
  }

  r.telemetry.push(
    telemetryRow(r, base, {
      ...responseFields(res, archived),
      error_code: errorCode,
      redirect_to: redirectTo,
    }),
  );
  if (RETRY_STATUSES.has(res.status)) {
    const retryAfterMs = parseRetryAfterMs(headerValue(res.headers, 'retry-after'), Date.now());
    return { retry: { error: `http_${res.status}`, retryAfterMs } };
  }
  if (res.truncated === 'time') return { retry: { error: 'total_timeout', retryAfterMs: 0 } };
  if (res.truncated === 'disconnect') return { retry: { error: 'disconnect', retryAfterMs: 0 } };
  return GO_ON;
}
