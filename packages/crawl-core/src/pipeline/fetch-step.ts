import { FetchError } from '../fetch/fetch-error';
import { conditionalHeaders } from '../fetch/conditional-headers';
import { isAddressRefusal } from '../lease/lease-run';
import { telemetryRow } from '../telemetry/telemetry-row';
import {
  CUT,
  DONE,
  next,
  rowFields,
  type FetchedUrl,
  type Step,
  type UrlContext,
} from './url-context';

/**
 * The request: a GET (conditional when the URL has a prior capture), its body held within the
 * agent's body budget until the URL's way ends (run-url.ts releases it). The request counts
 * for the host's pace whatever happens. A request that got no answer is recorded by a row with
 * its error code and, unless the error gives up on the URL, retried later; one the drain
 * abandoned is not done (`cut`).
 */
export const fetchStep: Step<UrlContext, FetchedUrl> = {
  name: 'fetch',
  runsIn: 'event-loop',
  async run(ctx) {
    const { r, entry, pacer } = ctx;
    const base = rowFields(ctx, new Date());
    const started = performance.now();
    try {
      const res = await r.http.get(entry.url, conditionalHeaders(entry.prior), {
        multiConnection: ctx.multiConnection,
        holdBody: true,
        cut: r.cut,
        // A sitemap file may be 50 MB: its first FETCH_MAX_BODY_BYTES still list entries.
        readOversize: entry.source === 'sitemap-file',
      });
      pacer.done(res.fetchMs);
      r.counters.fetched++;
      r.counters.bytes += res.body.length;
      if (res.status >= 500 || res.truncated) r.counters.errors++;
      return next({ ...ctx, base, res });
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
      return err.retry === 'give_up' ? DONE : { kind: 'retry', error: err.reason, retryAfterMs: 0 };
    }
  },
};
