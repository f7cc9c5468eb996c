import { randomBytes } from 'node:crypto';
import { urlFingerprint } from '@crawler/domain/url';
import { DEFAULT_TRAP_LIMITS } from '@crawler/domain/traps';
import type { AgentResources } from '../agent-resources';
import { FetchError } from '../fetch/fetch-error';
import { headerValue } from '../fetch/http-client';
import type { HostPacer } from '../lease/host-pacer';
import { telemetryRow } from '../telemetry/telemetry-row';
import { archiveForTelemetry } from '../archive/warc-failure';
import { robotsAllows, type RobotsState } from '../robots/robots-cache';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** A path no site has: random, shaped like a page so that a catch-all route answers it. */
export function probePath(): string {
  return `/${randomBytes(6).toString('hex')}-${randomBytes(3).toString('hex')}.html`;
}

/**
 * Asks a host, once, for a page that cannot exist, and remembers how it answers: a 200 page's
 * SimHash and title is the host's soft-404 answer, and later 200 pages near-identical to it are
 * soft 404s (not followed, kept out of the feed). The probe is a request like any other — at the
 * host's pace, only where robots.txt allows it, archived and recorded — and follows the host's
 * first page (in a lease worked over several connections: before its first page). Returns false when the agent stopped while waiting for the host's turn, or the lease may not
 * start a request.
 */
export async function probeSoft404(
  r: AgentResources,
  host: string,
  origin: string,
  robots: RobotsState,
  pacer: HostPacer,
  /** False when no request may start now (the lease is not surely alive long enough). */
  mayStart: () => boolean | Promise<boolean> = () => true,
): Promise<boolean> {
  const quality = r.quality.get(host);
  if (!r.config.QUALITY_SOFT404_PROBE || !quality?.needsProbe()) return true;
  const url = `${origin}${probePath()}`;
  if (!robotsAllows(robots, url)) {
    quality.setProbe(0, '');
    return true;
  }
  await pacer.wait(r.stop);
  if (r.stop.aborted || !(await mayStart())) return false;
  const fetchedAt = new Date();
  const base = { urlFp: urlFingerprint(url), url, host, depth: 0, fetchedAt };
  const started = performance.now();
  let res;
  try {
    res = await r.http.get(url, {});
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    pacer.done(performance.now() - started);
    // Nothing to compare with; the host is judged without soft-404 detection.
    quality.setProbe(0, '');
    r.telemetry.push(
      telemetryRow(r, base, {
        error_code: err.reason,
        fetch_ms: Math.round(performance.now() - started),
      }),
    );
    return true;
  }
  pacer.done(res.fetchMs);
  // A request, not a page of the crawl: counted on its own.
  r.counters.probes++;
  r.counters.bytes += res.body.length;
  // A failed WARC write leaves the row without a record; the answer is still learned from.
  const { archived, fields } = await archiveForTelemetry(r, res, fetchedAt);
  let simhash = '';
  let title = '';
  if (res.status >= 200 && res.status < 300 && HTML_TYPES.has(res.contentType) && !res.truncated) {
    try {
      const parsed = await r.parsePool.page({
        page: {
          url,
          body: res.body,
          contentType: headerValue(res.headers, 'content-type') ?? '',
          xRobotsTag: null,
          productToken: r.config.CRAWLER_UA_TOKEN,
          contentSha256: archived?.contentHash ?? '',
        },
        depth: 0,
        hops: 0,
        limits: DEFAULT_TRAP_LIMITS,
        parseMaxBytes: r.config.PARSE_MAX_BYTES,
        archive: null,
      });
      simhash = parsed.parsed?.page.simhash ?? '';
      title = parsed.parsed?.page.title ?? '';
    } catch (err) {
      r.log.debug({ err, host }, 'soft-404 probe answer not parsed');
    }
  }
  quality.setProbe(res.status, simhash, title);
  r.telemetry.push(telemetryRow(r, base, { ...fields, simhash }));
  return true;
}
