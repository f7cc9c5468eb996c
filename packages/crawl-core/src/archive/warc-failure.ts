import type { PriorCapture } from '@crawler/frontier';
import type { TelemetryRow } from '@crawler/domain/messages';
import { WarcError } from '@crawler/adapters/warc';
import type { AgentResources } from '../agent-resources';
import type { HttpResponse } from '../fetch/http-client';
import { archiveResponse, type ArchivedResponse } from './archive-response';
import { responseFields, telemetryRow } from '../telemetry/telemetry-row';

/**
 * The code of a fetch whose WARC record could not be written (disk full, I/O error): its
 * telemetry row's `error_code` and the lease failure it causes, so the URL is retried later
 * with its attempt counted (dead-lettered at the limit) and its host backs off.
 */
export const WARC_WRITE_FAILED = 'warc_write_failed';

/** A WARC write that failed or was refused while the writer recovers: nothing was written. */
export function isWarcWriteFailure(err: unknown): err is WarcError {
  return (
    err instanceof WarcError &&
    (err.code === 'WARC_WRITE_FAILED' || err.code === 'WARC_UNAVAILABLE')
  );
}

/**
 * The telemetry fields of a response that was fetched but could not be archived: what was
 * answered, and no pointer into a WARC file (no key, offset, record id or digest), since no
 * record can be read back for it.
 */
export function unarchivedFields(res: HttpResponse): Partial<TelemetryRow> {
  return {
    status: res.status,
    bytes: res.body.length,
    fetch_ms: Math.round(res.fetchMs),
    content_type: res.contentType,
    error_code: WARC_WRITE_FAILED,
  };
}

/** {@link archiveResponse}, or null when the WARC write failed (other errors still throw). */
export async function archiveOrNull(
  r: AgentResources,
  res: HttpResponse,
  fetchedAt: Date,
  prior?: PriorCapture,
): Promise<ArchivedResponse | null> {
  try {
    return await archiveResponse(r, res, fetchedAt, prior);
  } catch (err) {
    if (!isWarcWriteFailure(err)) throw err;
    r.log.warn({ err, url: res.url }, 'WARC write failed; fetch recorded without a record');
    return null;
  }
}

/**
 * Archives a response that is not a page of the crawl (robots.txt, a soft-404 probe) and gives
 * its telemetry fields: pointing at its record, or, when the write failed, at none (what the
 * response taught, e.g. robots rules, is still used; the lease's next page write fails the
 * lease).
 */
export async function archiveForTelemetry(
  r: AgentResources,
  res: HttpResponse,
  fetchedAt: Date,
): Promise<{ archived: ArchivedResponse | null; fields: Partial<TelemetryRow> }> {
  const archived = await archiveOrNull(r, res, fetchedAt);
  return { archived, fields: archived ? responseFields(res, archived) : unarchivedFields(res) };
}

/**
 * A fetched URL whose WARC write failed: counted as an error, recorded by a telemetry row that
 * points at no record, and retried later — the lease fails at this URL, so its attempt counts
 * and the host backs off (the agent leases nothing new until writes work again).
 */
export function warcWriteFailed(
  r: AgentResources,
  base: { urlFp: string; url: string; host: string; depth: number; fetchedAt: Date },
  res: HttpResponse,
  err: WarcError,
): { retry: { error: string; retryAfterMs: number } } {
  r.counters.errors++;
  r.log.warn({ err, url: base.url }, 'WARC write failed; the URL is retried later');
  r.telemetry.push(telemetryRow(r, base, unarchivedFields(res)));
  return { retry: { error: WARC_WRITE_FAILED, retryAfterMs: 0 } };
}
