import type { PriorCapture } from '@crawler/frontier';
import { sha256Hex } from '@crawler/domain/dedupe';
import type { TelemetryRow } from '@crawler/domain/messages';
import type { EarlierCapture, HttpExchange, WarcLocation } from '@crawler/adapters/warc';
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
  /** How to archive it, when already decided ({@link planArchive}). */
  planned?: ArchivePlan,
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

  const plan = planned ?? (await planArchive(r, res, prior));
  if (plan.original) {
    const location = await r.warc.writeRevisit(exchange, {
      profile: 'identical-payload-digest',
      original: plan.original,
    });
    return {
      location,
      contentHash: plan.contentHash,
      recordType: 'revisit',
      change: plan.change,
      duplicateOf: plan.original.url === res.url ? '' : plan.original.url,
    };
  }
  return recordStored(r, res, fetchedAt, plan, await r.warc.writeExchange(exchange));
}

/** How a fetched body (not a 304) is archived: in full, or as a revisit of `original`. */
export interface ArchivePlan {
  contentHash: string;
  change: TelemetryRow['change'];
  /** A complete 2xx body: it goes into the content index once stored. */
  complete: boolean;
  /** The earlier capture this body repeats (same URL's prior, or any through the index). */
  original: EarlierCapture | null;
}

/**
 * Decides how to archive a response (not a 304): its SHA-256, its change against the URL's
 * prior capture, and whether it repeats an earlier capture exactly (then it is a revisit).
 */
export async function planArchive(
  r: AgentResources,
  res: HttpResponse,
  prior?: PriorCapture,
): Promise<ArchivePlan> {
  const contentHash = sha256Hex(res.body);
  const complete = res.status >= 200 && res.status < 300 && !res.truncated && res.body.length > 0;
  const change: TelemetryRow['change'] = !complete
    ? ''
    : !prior?.sha256
      ? 'new'
      : prior.sha256 === contentHash
        ? 'unchanged'
        : 'changed';
  if (!complete) return { contentHash, change, complete, original: null };
  if (change === 'unchanged' && prior?.recordId && prior.payloadDigest && prior.capturedAt) {
    const original = {
      recordId: prior.recordId,
      url: res.url,
      date: new Date(prior.capturedAt),
      payloadDigest: prior.payloadDigest,
    };
    return { contentHash, change, complete, original };
  }
  const origin = r.config.DEDUPE_EXACT ? await r.content.lookup(contentHash) : null;
  const original = origin
    ? {
        recordId: origin.recordId,
        url: origin.url,
        date: new Date(origin.capturedAt),
        payloadDigest: origin.payloadDigest,
      }
    : null;
  return { contentHash, change, complete, original };
}

/**
 * A body stored in full at `location`: remembered in the content index (a complete one), so
 * later copies become revisits of it.
 */
export async function recordStored(
  r: AgentResources,
  res: HttpResponse,
  fetchedAt: Date,
  plan: ArchivePlan,
  location: WarcLocation,
): Promise<ArchivedResponse> {
  if (plan.complete && r.config.DEDUPE_EXACT) {
    await r.content.remember(plan.contentHash, {
      recordId: location.recordId,
      capturedAt: fetchedAt.getTime(),
      payloadDigest: location.payloadDigest,
      url: res.url,
      warcKey: location.key,
      warcOffset: location.offset,
      warcLength: location.length,
    });
  }
  return {
    location,
    contentHash: plan.contentHash,
    recordType: 'response',
    change: plan.change,
    duplicateOf: '',
  };
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
