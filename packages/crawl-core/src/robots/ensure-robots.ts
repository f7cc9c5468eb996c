import { urlFingerprint } from '@crawler/domain/url';
import type { AgentResources } from '../agent-resources';
import { enqueueRobotsSitemaps } from '../parse/enqueue-robots-sitemaps';
import { FetchError } from '../fetch/fetch-error';
import { headerValue, type HttpResponse } from '../fetch/http-client';
import type { RobotsState } from './robots-cache';
import type { HostPacer } from '../lease/host-pacer';
import { telemetryRow } from '../telemetry/telemetry-row';
import { archiveForTelemetry } from '../archive/warc-failure';
import { isAddressRefusal, type AddressRefusal } from '../lease/lease-run';

const MAX_ROBOTS_REDIRECTS = 5;

/** robots.txt could not be requested: the network guard refuses the host's own address. */
export interface AddressRefused {
  kind: 'disallow_all';
  failures: number;
  refused: AddressRefusal;
}

/**
 * The robots state of an origin, fetching robots.txt when it is not cached: with the same client,
 * user agent and network path as pages, at the host's pace, following up to 5 redirects. Null
 * when the agent stopped while waiting for the host's turn, or the lease may not start a request
 * (no request was started). Its
 * `Sitemap:` lines are enqueued at `depth`, the depth of the URL that needed it.
 */
export async function ensureRobots(
  r: AgentResources,
  origin: string,
  host: string,
  pacer: HostPacer,
  depth = 0,
  /** False when no request may start now (the lease is not surely alive long enough). */
  mayStart: () => boolean | Promise<boolean> = () => true,
): Promise<RobotsState | AddressRefused | null> {
  const cached = await r.robots.cached(origin);
  if (cached) return cached.state;
  let url = `${origin}/robots.txt`;
  for (let hop = 0; hop <= MAX_ROBOTS_REDIRECTS; hop++) {
    await pacer.wait(r.stop);
    if (r.stop.aborted || !(await mayStart())) return null;
    const fetchedAt = new Date();
    const base = { urlFp: urlFingerprint(url), url, host, depth: 0, fetchedAt };
    const started = performance.now();
    let held: HttpResponse | null = null;
    try {
      // The body and the copies made of it here (text, Redis JSON, its write) stay within the
      // agent's body budget until recorded: thousands of 500 KiB files at once cannot pile up.
      const res = (held = await r.http.get(
        url,
        {},
        { holdBody: true, heldCopies: 3, readOversize: true },
      ));
      pacer.done(res.fetchMs);
      // A failed WARC write leaves the row without a record; the rules still count.
      const { fields } = await archiveForTelemetry(r, res, fetchedAt);
      const next =
        res.status >= 300 && res.status < 400 ? headerValue(res.headers, 'location') : undefined;
      const target = next ? safeResolve(next, url) : null;
      r.telemetry.push(
        telemetryRow(r, base, {
          ...fields,
          redirect_to: target ?? '',
        }),
      );
      if (target) {
        url = target;
        continue;
      }
      // A robots.txt cut short by time or a hang-up is "unreachable"; one over the cap is read
      // as far as it goes (RFC 9309 allows a 500 KiB limit).
      if (res.truncated && res.truncated !== 'length')
        return r.robots.record(origin, {
          error: res.truncated === 'disconnect' ? 'network' : 'timeout',
        });
      const state = await r.robots.record(origin, { status: res.status, body: res.body });
      if (state.kind === 'rules') await enqueueRobotsSitemaps(r, state.rules.sitemaps, depth);
      return state;
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      pacer.done(performance.now() - started);
      r.telemetry.push(
        telemetryRow(r, base, {
          error_code: err.reason,
          fetch_ms: Math.round(performance.now() - started),
        }),
      );
      // Not a robots.txt outcome: none of the host's URLs can ever be fetched (robotsUnavailable).
      if (hop === 0 && isAddressRefusal(err.reason))
        return { kind: 'disallow_all', failures: 0, refused: err.reason };
      return r.robots.record(origin, { error: /timeout/.test(err.reason) ? 'timeout' : 'network' });
    } finally {
      if (held) r.http.releaseBody(held);
    }
  }
  return r.robots.record(origin, { error: 'too_many_redirects' });
}

function safeResolve(href: string, base: string): string | null {
  try {
    const u = new URL(href, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}
