import type { PriorCapture } from '@crawler/frontier';
import type { TelemetryRow } from '@crawler/domain/messages';
import type { HttpExchange, WarcLocation } from '@crawler/adapters/warc';
import type { AgentResources } from '../agent-resources';
import type { HttpResponse } from '../fetch/http-client';
import { archiveTask, type ArchiveTaskInput, type ArchiveTaskResult } from './archive-task';
import { ParsePoolError } from '../parse/parse-pool';

export interface ArchivedResponse {
  location: WarcLocation;
  /** SHA-256 (hex) of the body; for a 304, the prior capture's, if known. */
  contentHash: string;
  recordType: 'response' | 'revisit';
  /** Against the URL's prior capture; '' when there is no complete body to compare. */
  change: TelemetryRow['change'];
  /** URL of another capture this one duplicates exactly, or ''. */
  duplicateOf: string;
  /** WARC-Record-ID of the capture a revisit refers to, when known. */
  refersTo?: string;
}

/**
 * Archives a fetch, as little as it takes (see {@link archiveTask}): a 304 or a body identical
 * to the URL's prior capture → a revisit of it; a complete body the content index has seen at
 * another capture → a revisit of that one; anything else → response + request records. The
 * hashing and record building run in a parse-pool worker, off the event loop; here only the
 * content index is asked and the records appended.
 */
export async function archiveResponse(
  r: AgentResources,
  res: HttpResponse,
  fetchedAt: Date,
  prior?: PriorCapture,
): Promise<ArchivedResponse> {
  const input = { ...archiveInput(r, res, fetchedAt, prior), body: res.body };
  return placeArchive(r, res, fetchedAt, input, await runArchiveTask(r, input));
}

/** The archive task's input for a response, but its body. */
export function archiveInput(
  r: AgentResources,
  res: HttpResponse,
  fetchedAt: Date,
  prior?: PriorCapture,
): Omit<ArchiveTaskInput, 'body'> {
  const { body: _body, ...exchange } = toExchange(res, fetchedAt);
  return { exchange, gzipLevel: r.warc.gzipLevel, ...(prior ? { prior } : {}) };
}

/**
 * The archive task in a worker; in-process only when the pool cannot run it (closed at a stop,
 * a worker that died or ran past its time limit).
 */
async function runArchiveTask(
  r: AgentResources,
  input: ArchiveTaskInput,
): Promise<ArchiveTaskResult> {
  try {
    return await r.parsePool.archive(input);
  } catch (err) {
    if (!(err instanceof ParsePoolError)) throw err;
    return archiveTask(input);
  }
}

/**
 * Appends the records the archive task built. A complete body stored in full is first looked up
 * in the content index: when an earlier capture has it, its revisit is built (in a worker) and
 * written instead; else the body is stored and remembered there, so later copies become
 * revisits of it.
 */
export async function placeArchive(
  r: AgentResources,
  res: HttpResponse,
  fetchedAt: Date,
  input: ArchiveTaskInput,
  built: ArchiveTaskResult,
): Promise<ArchivedResponse> {
  const { contentHash, change, original } = built;
  if ('revisit' in built.records) {
    const location = await r.warc.writeBuiltRevisit(built.records.revisit);
    return {
      location,
      contentHash,
      recordType: 'revisit',
      change,
      duplicateOf: original && original.url !== res.url ? original.url : '',
      ...(original ? { refersTo: original.recordId } : {}),
    };
  }
  const indexed = built.complete && r.config.DEDUPE_EXACT;
  const origin = indexed ? await r.content.lookup(contentHash) : null;
  if (origin) {
    const against = {
      original: {
        recordId: origin.recordId,
        url: origin.url,
        date: new Date(origin.capturedAt),
        payloadDigest: origin.payloadDigest,
      },
      contentHash,
      change,
    };
    return placeArchive(r, res, fetchedAt, input, await runArchiveTask(r, { ...input, against }));
  }
  const location = await r.warc.writeBuiltExchange(built.records.exchange);
  if (indexed) {
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

/** The exchange as the WARC writer records it. */
export function toExchange(res: HttpResponse, fetchedAt: Date): HttpExchange {
  return {
    url: res.url,
    fetchedAt,
    ...(res.ip ? { ip: res.ip } : {}),
    method: 'GET',
    requestHeaders: res.requestHeaders,
    httpVersion: res.httpVersion,
    ...(res.tls ? { tls: res.tls } : {}),
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
