import type { PriorCapture } from '@crawler/frontier';
import { sha256Hex } from '@crawler/shared/dedupe';
import type { TelemetryRow } from '@crawler/shared/messages';
import type { HttpExchange, WarcLocation } from '@crawler/shared/warc';
import type { AgentResources } from '../agent-resources';
import type { HttpResponse } from '../fetch/http-client';

export interface ArchivedResponse {
  location: WarcLocation;
  /** SHA-256 (hex) of the body; for a 304, the prior capture's, if known. */
  contentHash: string;
  recordType: 'response' | 'revisit';
  /** Against the URL's prior capture; '' when there is no complete body to compare. */
  change: TelemetryRow['change'];
  /** URL of another capture this one duplicates exactly, or ''. */
  duplicateOf: string;
}

/**
 * Writes a fetch to WARC, as little as it takes:
 * - a 304 to a conditional GET → a `server-not-modified` revisit of the prior capture;
 * - a complete 2xx body identical to the prior capture or, through the content index, to any
 *   earlier capture → an `identical-payload-digest` revisit referring to it;
 * - anything else → response + request records (and a new body goes into the content index).
 */
export async function archiveResponse(
  r: AgentResources,
  res: HttpResponse,
  fetchedAt: Date,
  prior?: PriorCapture,
): Promise<ArchivedResponse> {
  const exchange = toExchange(res, fetchedAt);
  if (res.status === 304) {
    // Refers-To what is known of the prior capture; no payload digest (the 304 carries none,
    // and checkers such as warcio's reject one on this profile).
    const location = await r.warc.writeRevisit(exchange, {
      profile: 'server-not-modified',
      original: {
        url: res.url,
        ...(prior?.recordId ? { recordId: prior.recordId } : {}),
        ...(prior?.capturedAt ? { date: new Date(prior.capturedAt) } : {}),
      },
    });
    return {
      location,
      contentHash: prior?.sha256 ?? '',
      recordType: 'revisit',
      change: 'unchanged',
      duplicateOf: '',
    };
  }

  const contentHash = sha256Hex(res.body);
  const complete = res.status >= 200 && res.status < 300 && !res.truncated && res.body.length > 0;
  const change: TelemetryRow['change'] = !complete
    ? ''
    : !prior?.sha256
      ? 'new'
      : prior.sha256 === contentHash
        ? 'unchanged'
        : 'changed';
  if (complete) {
    const same =
      change === 'unchanged' && prior?.recordId && prior.payloadDigest && prior.capturedAt
        ? {
            recordId: prior.recordId,
            url: res.url,
            date: new Date(prior.capturedAt),
            payloadDigest: prior.payloadDigest,
          }
        : null;
    const origin = same ? null : r.config.DEDUPE_EXACT ? await r.content.lookup(contentHash) : null;
    const original = same
      ? same
      : origin
        ? {
            recordId: origin.recordId,
            url: origin.url,
            date: new Date(origin.capturedAt),
            payloadDigest: origin.payloadDigest,
          }
        : null;
    if (original) {
      const location = await r.warc.writeRevisit(exchange, {
        profile: 'identical-payload-digest',
        original,
      });
      return {
        location,
        contentHash,
        recordType: 'revisit',
        change,
        duplicateOf: original.url === res.url ? '' : original.url,
      };
    }
  }

  const location = await r.warc.writeExchange(exchange);
  if (complete && r.config.DEDUPE_EXACT) {
    await r.content.remember(contentHash, {
      recordId: location.recordId,
      capturedAt: fetchedAt.getTime(),
      payloadDigest: location.payloadDigest,
      url: res.url,
      warcKey: location.key,
      warcOffset: location.offset,
      warcLength: location.length,
    });
  }
  return { location, contentHash, recordType: 'response', change, duplicateOf: '' };
}

function toExchange(res: HttpResponse, fetchedAt: Date): HttpExchange {
  return {
    url: res.url,
    fetchedAt,
    ...(res.ip ? { ip: res.ip } : {}),
    method: 'GET',
    requestHeaders: res.requestHeaders,
    httpVersion: res.httpVersion,
    status: res.status,
    statusText: res.statusText,
    // The writer stores the decoded body and moves Content-Encoding / Transfer-Encoding to
    // X-Crawler-Original-* headers, so the record stays self-consistent.
    responseHeaders: res.headers,
    body: res.body,
    // WARC-Truncated knows length, time and disconnect; a too-slow transfer was cut for time.
    ...(res.truncated ? { truncated: res.truncated === 'slow' ? 'time' : res.truncated } : {}),
  };
}

/** The telemetry code of a truncated body ('' when it is whole). */
export function truncationCode(truncated: HttpResponse['truncated']): string {
  switch (truncated) {
    case 'length':
      return 'too_large';
    case 'time':
      return 'total_timeout';
    case 'slow':
      return 'too_slow';
    case 'disconnect':
      return 'disconnect';
    default:
      return '';
  }
}

/** A telemetry row for a fetch, with the fields every row shares filled in. */
export function telemetryRow(
  r: AgentResources,
  base: { urlFp: string; url: string; host: string; depth: number; fetchedAt: Date },
  fields: Partial<TelemetryRow>,
): TelemetryRow {
  return {
    url_fp: base.urlFp,
    url: base.url,
    host: base.host,
    fetched_at: base.fetchedAt.getTime(),
    status: 0,
    error_code: '',
    bytes: 0,
    fetch_ms: 0,
    content_type: '',
    content_hash: '',
    depth: base.depth,
    agent_id: r.config.agentId,
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
    record_type: '',
    record_id: '',
    payload_digest: '',
    etag: '',
    last_modified: '',
    change: '',
    duplicate_of: '',
    simhash: '',
    ...fields,
  };
}

/** The telemetry fields of a response that was archived. */
export function responseFields(
  res: HttpResponse,
  archived: ArchivedResponse,
): Partial<TelemetryRow> {
  return {
    status: res.status,
    bytes: res.body.length,
    fetch_ms: Math.round(res.fetchMs),
    content_type: res.contentType,
    content_hash: archived.contentHash,
    warc_key: archived.location.key,
    warc_offset: archived.location.offset,
    warc_length: archived.location.length,
    record_type: archived.recordType,
    record_id: archived.location.recordId,
    payload_digest: archived.location.payloadDigest,
    etag: headerOf(res, 'etag').slice(0, 1024),
    last_modified: headerOf(res, 'last-modified').slice(0, 1024),
    change: archived.change,
    duplicate_of: archived.duplicateOf,
    error_code: truncationCode(res.truncated),
  };
}

function headerOf(res: HttpResponse, name: string): string {
  for (const [k, v] of res.headers)
    if (k.length === name.length && k.toLowerCase() === name) return v;
  return '';
}
