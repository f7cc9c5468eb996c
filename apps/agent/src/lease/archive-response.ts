import { createHash } from 'node:crypto';
import type { TelemetryRow } from '@crawler/shared/messages';
import type { WarcLocation } from '@crawler/shared/warc';
import type { AgentResources } from '../agent-resources';
import type { HttpResponse } from '../fetch/http-client';

export interface ArchivedResponse {
  location: WarcLocation;
  contentHash: string;
}

/** Writes the exchange to WARC (response + request records) and hashes the body (SHA-256). */
export async function archiveResponse(
  r: AgentResources,
  res: HttpResponse,
  fetchedAt: Date,
): Promise<ArchivedResponse> {
  const location = await r.warc.writeExchange({
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
    ...(res.truncated ? { truncated: res.truncated } : {}),
  });
  return { location, contentHash: createHash('sha256').update(res.body).digest('hex') };
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
  };
}
