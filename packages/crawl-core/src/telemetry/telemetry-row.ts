import { TELEMETRY_ROW_DEFAULTS, type TelemetryRow } from '@crawler/domain/messages';
import type { AgentResources } from '../agent-resources';
import type { HttpResponse } from '../fetch/http-client';
import type { ArchivedResponse } from '../archive/archive-response';

/** Where a telemetry row's fetch was made: the URL's identity, its depth and the time. */
export interface TelemetryBase {
  urlFp: string;
  url: string;
  host: string;
  depth: number;
  fetchedAt: Date;
}

/**
 * The fields of a fetch that got nowhere: no answer, no body, no record. With the schema's own
 * defaults (TELEMETRY_ROW_DEFAULTS) they make the row every report starts from.
 */
const NOTHING_FETCHED = {
  status: 0,
  error_code: '',
  bytes: 0,
  fetch_ms: 0,
  content_type: '',
  content_hash: '',
  warc_key: '',
  warc_offset: 0,
  warc_length: 0,
  redirect_to: '',
} as const satisfies Partial<TelemetryRow>;

/** A telemetry row (the shared fetch row message) for a fetch, with `fields` over the blanks. */
export function telemetryRow(
  r: AgentResources,
  base: TelemetryBase,
  fields: Partial<TelemetryRow>,
): TelemetryRow {
  return {
    ...TELEMETRY_ROW_DEFAULTS,
    ...NOTHING_FETCHED,
    url_fp: base.urlFp,
    url: base.url,
    host: base.host,
    fetched_at: base.fetchedAt.getTime(),
    depth: base.depth,
    agent_id: r.config.agentId,
    ...fields,
  };
}

/** Longest media type a row carries (the schema's bound): a longer one is cut, not refused. */
const CONTENT_TYPE_MAX = 255;
/** Longest validator kept (the schema's bound). */
const VALIDATOR_MAX = 1024;

/** The telemetry fields of a response that was archived. */
export function responseFields(
  res: HttpResponse,
  archived: ArchivedResponse,
): Partial<TelemetryRow> {
  return {
    status: res.status,
    bytes: res.body.length,
    fetch_ms: Math.round(res.fetchMs),
    content_type: res.contentType.slice(0, CONTENT_TYPE_MAX),
    content_hash: archived.contentHash,
    warc_key: archived.location.key,
    warc_offset: archived.location.offset,
    warc_length: archived.location.length,
    record_type: archived.recordType,
    record_id: archived.location.recordId,
    payload_digest: archived.location.payloadDigest,
    etag: headerOf(res, 'etag').slice(0, VALIDATOR_MAX),
    last_modified: headerOf(res, 'last-modified').slice(0, VALIDATOR_MAX),
    change: archived.change,
    duplicate_of: archived.duplicateOf,
    error_code: truncationCode(res.truncated),
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

function headerOf(res: HttpResponse, name: string): string {
  for (const [k, v] of res.headers)
    if (k.length === name.length && k.toLowerCase() === name) return v;
  return '';
}
