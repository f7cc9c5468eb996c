import { headerValue } from '../fetch/http-client';
import { parseRetryAfterMs } from '../fetch/parse-retry-after';
import { responseFields, telemetryRow } from '../telemetry/telemetry-row';
import { DONE, type LinkedUrl, type Step } from './url-context';

/** Statuses that mean "not now": the URL is retried later and the host backs off. */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * The fetch's one telemetry row (its CDX fields, validators, change verdict, SimHash, error
 * code) to the telemetry stream, and what the host's quality rules learn from it; then whether
 * the URL is done or retried later: a 429/5xx (the host backs off, `Retry-After` honoured) or a
 * body cut short by time, speed or a hang-up (bounded by attempts).
 */
export const telemetryStep: Step<LinkedUrl, never> = {
  name: 'telemetry',
  runsIn: 'event-loop',
  run(ctx) {
    const { r, host, entry, res, archived, page, base, errorCode } = ctx;
    const simhash = page?.simhash ?? '';
    r.quality.get(host)?.observe({
      url: entry.url,
      status: res.status,
      sha256: archived.contentHash,
      simhash,
      duplicate: archived.duplicateOf !== '',
      soft404: page?.soft404 ?? false,
      title: page?.title ?? '',
      at: base.fetchedAt.getTime(),
    });
    r.telemetry.push(
      telemetryRow(r, base, {
        ...responseFields(res, archived),
        error_code: errorCode,
        redirect_to: ctx.redirectTo,
        simhash,
      }),
    );
    if (RETRY_STATUSES.has(res.status)) {
      const retryAfterMs = parseRetryAfterMs(headerValue(res.headers, 'retry-after'), Date.now());
      return Promise.resolve({ kind: 'retry', error: `http_${res.status}`, retryAfterMs });
    }
    if (res.truncated && res.truncated !== 'length')
      return Promise.resolve({ kind: 'retry', error: errorCode, retryAfterMs: 0 });
    return Promise.resolve(DONE);
  },
};
