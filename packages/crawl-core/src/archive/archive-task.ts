import { sha256Hex } from '@crawler/domain/dedupe';
import type { TelemetryRow } from '@crawler/domain/messages';
import type { PriorCapture } from '@crawler/frontier';
import {
  buildExchange,
  buildRevisit,
  type BuiltExchange,
  type EarlierCapture,
  type GzipMember,
  type HttpExchange,
} from '@crawler/adapters/warc';

/** One fetched response to archive: everything per byte of it happens in {@link archiveTask}. */
export interface ArchiveTaskInput {
  exchange: Omit<HttpExchange, 'body'>;
  body: Uint8Array;
  /** The WARC writer's gzip level. */
  gzipLevel: number;
  /** What the URL's queue entry knows of its last capture. */
  prior?: PriorCapture;
  /**
   * The body repeats this earlier capture (the content index found it): build only its
   * `identical-payload-digest` revisit, with the hash and change already known.
   */
  against?: {
    original: EarlierCapture;
    contentHash: string;
    change: TelemetryRow['change'];
  };
}

/** The records built for a response, and what the archive decided about it. */
export interface ArchiveTaskResult {
  /** SHA-256 (hex) of the body; for a 304, the prior capture's, if known. */
  contentHash: string;
  /** Against the URL's prior capture; '' when there is no complete body to compare. */
  change: TelemetryRow['change'];
  /** A complete 2xx body: a candidate for the content index (once stored, or revisited). */
  complete: boolean;
  /** The earlier capture a revisit refers to (null: stored in full, or a 304). */
  original: EarlierCapture | null;
  /** The revisit refers to the URL's own prior capture (its body is no news). */
  ofPrior: boolean;
  records: { exchange: BuiltExchange } | { revisit: GzipMember };
}

/**
 * Decides how a response is archived and builds its records — SHA-256 of the body, WARC
 * digests, gzip — pure CPU, run in a parse-pool worker (or in-process when the pool fails):
 * - a 304 to a conditional GET → a `server-not-modified` revisit of the prior capture;
 * - a complete 2xx body identical to the prior capture → an `identical-payload-digest` revisit
 *   of it (the body repeating another capture is found by the content index, on the event
 *   loop, which then asks for that revisit with `against`);
 * - anything else → response + request records.
 */
export async function archiveTask(input: ArchiveTaskInput): Promise<ArchiveTaskResult> {
  const { prior, against } = input;
  const ex: HttpExchange = { ...input.exchange, body: input.body };
  if (against) {
    const revisit = await buildRevisit(
      ex,
      { profile: 'identical-payload-digest', original: against.original },
      input.gzipLevel,
    );
    return {
      contentHash: against.contentHash,
      change: against.change,
      complete: true,
      original: against.original,
      ofPrior: false,
      records: { revisit },
    };
  }
  if (ex.status === 304) {
    // Refers-To what is known of the prior capture; no payload digest (the 304 carries none,
    // and checkers such as warcio's reject one on this profile).
    const revisit = await buildRevisit(
      ex,
      {
        profile: 'server-not-modified',
        original: {
          url: ex.url,
          ...(prior?.recordId ? { recordId: prior.recordId } : {}),
          ...(prior?.capturedAt ? { date: new Date(prior.capturedAt) } : {}),
        },
      },
      input.gzipLevel,
    );
    return {
      contentHash: prior?.sha256 ?? '',
      change: 'unchanged',
      complete: false,
      original: null,
      ofPrior: true,
      records: { revisit },
    };
  }
  const contentHash = sha256Hex(input.body);
  const complete =
    ex.status >= 200 && ex.status < 300 && !ex.truncated && input.body.byteLength > 0;
  const change: TelemetryRow['change'] = !complete
    ? ''
    : !prior?.sha256
      ? 'new'
      : prior.sha256 === contentHash
        ? 'unchanged'
        : 'changed';
  if (change === 'unchanged' && prior?.recordId && prior.payloadDigest && prior.capturedAt) {
    const original = {
      recordId: prior.recordId,
      url: ex.url,
      date: new Date(prior.capturedAt),
      payloadDigest: prior.payloadDigest,
    };
    const revisit = await buildRevisit(
      ex,
      { profile: 'identical-payload-digest', original },
      input.gzipLevel,
    );
    return { contentHash, change, complete, original, ofPrior: true, records: { revisit } };
  }
  const exchange = await buildExchange(ex, input.gzipLevel);
  return { contentHash, change, complete, original: null, ofPrior: false, records: { exchange } };
}
