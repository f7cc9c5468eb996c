import { frontierEntry } from '@crawler/domain/url';
import type { LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { FetchError } from '../fetch/fetch-error';
import { headerValue, type HttpResponse } from '../fetch/http-client';
import { parseRetryAfterMs } from '../fetch/parse-retry-after';
import { enqueueSitemapEntries } from '../parse/enqueue-sitemap-entries';
import { isSitemapDocument } from '../parse/is-sitemap-document';
import type { HostPacer } from './host-pacer';
import { archiveResponse, type ArchivedResponse } from './archive-response';
import { responseFields, telemetryRow } from '../telemetry/telemetry-row';
import { conditionalHeaders } from './conditional-headers';
import { followHtml, type HtmlOutcome } from './follow-html';
import { isAddressRefusal } from './lease-run';
import { isWarcWriteFailure, warcWriteFailed } from '../archive/warc-failure';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Statuses that mean "not now": the URL is retried later and the host backs off. */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

/** A body to read links from: stored in full, or a duplicate of another URL (relative links differ). */
function bodyIsNews(a: ArchivedResponse): boolean {
  return a.recordType === 'response' || a.duplicateOf !== '';
}

/** A whole 2xx HTML page (not a sitemap): parsed, its links followed, published to the feed. */
function isHtmlPage(res: HttpResponse, entry: LeasedUrl): boolean {
  return (
    res.status >= 200 &&
    res.status < 300 &&
    HTML_TYPES.has(res.contentType) &&
    !res.truncated &&
    !isSitemapDocument(entry, res)
  );
}

/**
 * What the lease should do after a fetch: go on; stop here and retry the URL later (the host
 * failed); or stop here with the URL not done, as if never taken (`cut`: the drain abandoned the
 * request, which the URL's next lease makes again).
 */
export type FetchOutcome =
  | { retry: null; cut?: false }
  | { retry: { error: string; retryAfterMs: number }; cut?: false }
  | { retry: null; cut: true };
const GO_ON: FetchOutcome = { retry: null };
const CUT: FetchOutcome = { retry: null, cut: true };

/**
 * Fetches one URL and records everything about it: the exchange in WARC, one telemetry row,
 * redirect targets and discovered links back into the frontier (where the seen-check, the
 * target host's robots.txt and its pace apply). The body holds its share of the agent's body
 * budget until it is archived and parsed.
 */
export async function fetchAndRecord(
  r: AgentResources,
  host: string,
  entry: LeasedUrl,
  pacer: HostPacer,
  /** The host allows several connections: this request may open one beside the others. */
  multiConnection = false,
): Promise<FetchOutcome> {
  const held: { res?: HttpResponse } = {};
  try {
    return await fetchAndRecordHeld(r, host, entry, pacer, multiConnection, held);
  } finally {
    if (held.res) r.http.releaseBody(held.res);
  }
}

async function fetchAndRecordHeld(
  r: AgentResources,
  host: string,
  entry: LeasedUrl,
  pacer: HostPacer,
  multiConnection: boolean,
  held: { res?: HttpResponse },
): Promise<FetchOutcome> {
  const fetchedAt = new Date();
  const base = { urlFp: entry.urlFp, url: entry.url, host, depth: entry.depth, fetchedAt };
  const started = performance.now();
  let res;
  try {
    res = held.res = await r.http.get(entry.url, conditionalHeaders(entry.prior), {
      multiConnection,
      holdBody: true,
      cut: r.cut,
    });
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    pacer.done(performance.now() - started);
    // No row: the request counts for the host's pace, and the URL goes back to its queue.
    if (err.reason === 'drain_cut') return CUT;
    if (isAddressRefusal(err.reason)) r.counters.addressRefused++;
    else r.counters.errors++;
    r.telemetry.push(
      telemetryRow(r, base, {
        error_code: err.reason,
        fetch_ms: Math.round(performance.now() - started),
      }),
    );
    return err.retry === 'give_up' ? GO_ON : { retry: { error: err.reason, retryAfterMs: 0 } };
  }
  pacer.done(res.fetchMs);
  r.counters.fetched++;
  r.counters.bytes += res.body.length;
  if (res.status >= 500 || res.truncated) r.counters.errors++;

  let archived: ArchivedResponse;
  let html: HtmlOutcome | null = null;
  try {
    if (isHtmlPage(res, entry))
      ({ archived, html } = await followHtml(r, host, entry, res, fetchedAt));
    else archived = await archiveResponse(r, res, fetchedAt, entry.prior);
  } catch (err) {
    // Disk full or failing: no record, so no row may point at one; the lease fails at this URL.
    if (!isWarcWriteFailure(err)) throw err;
    return warcWriteFailed(r, base, res, err);
  }
  const fields = responseFields(res, archived);
  let redirectTo = '';
  const simhash = html?.simhash ?? '';
  let errorCode = html?.errorCode || (fields.error_code ?? '');

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
  }

  r.quality.get(host)?.observe({
    url: entry.url,
    status: res.status,
    sha256: archived.contentHash,
    simhash,
    duplicate: archived.duplicateOf !== '',
    soft404: errorCode === 'soft_404',
    title: html?.title ?? '',
    at: fetchedAt.getTime(),
  });
  r.telemetry.push(
    telemetryRow(r, base, {
      ...fields,
      error_code: errorCode,
      redirect_to: redirectTo,
      simhash,
    }),
  );
  if (RETRY_STATUSES.has(res.status)) {
    const retryAfterMs = parseRetryAfterMs(headerValue(res.headers, 'retry-after'), Date.now());
    return { retry: { error: `http_${res.status}`, retryAfterMs } };
  }
  // A body cut short by time, speed or a hang-up is worth another try later (bounded by attempts).
  if (res.truncated && res.truncated !== 'length')
    return { retry: { error: errorCode, retryAfterMs: 0 } };
  return GO_ON;
}
