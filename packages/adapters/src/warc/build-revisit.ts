import { HeadersMultiMap, StatusAndHeaders, WARCRecord, WARC_1_1 } from 'warcio';
import { exchangeWarcHeaders, newRecordId, type GzipMember } from './build-warc-records';
import { recordedResponseHeaders, responseStatusLine } from './http-header-blocks';
import { serializeRecord } from './serialize-record';
import type { EarlierCapture, HttpExchange, Revisit } from './types';
import { WarcError } from './warc-errors';

/** WARC-Profile URIs of the WARC 1.1 revisit profiles. */
export const REVISIT_PROFILE_URIS = {
  'identical-payload-digest': 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
  'server-not-modified': 'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
} as const satisfies Record<Revisit['profile'], string>;

const EMPTY = new Uint8Array(0);

/**
 * A revisit record: the HTTP status line and headers of the exchange, no payload.
 *
 * - identical-payload-digest: the headers as a response record would store them (the body was
 *   decoded, so Content-Length is its size and the encodings move to `X-Crawler-Original-*`),
 *   which keeps them consistent with the payload a replay tool takes from the original.
 * - server-not-modified: the 304's headers exactly as received; no body was stored or decoded,
 *   and a 304's Content-Length (if any) describes the unchanged representation.
 *
 * WARC-Truncated is written when the exchange was truncated.
 */
export async function buildRevisit(
  ex: HttpExchange,
  revisit: Revisit,
  gzipLevel: number,
): Promise<GzipMember> {
  const original = checkedOriginal(revisit);
  const recordId = newRecordId();
  const warcHeaders = exchangeWarcHeaders(ex, recordId);
  if (original.recordId) warcHeaders.push(['WARC-Refers-To', bracketed(original.recordId)]);
  if (original.url) warcHeaders.push(['WARC-Refers-To-Target-URI', original.url]);
  if (original.date) warcHeaders.push(['WARC-Refers-To-Date', original.date.toISOString()]);
  if (ex.truncated) warcHeaders.push(['WARC-Truncated', ex.truncated]);

  const statusline = responseStatusLine(ex.httpVersion, ex.status, ex.statusText);
  const httpHeaders =
    revisit.profile === 'identical-payload-digest'
      ? recordedResponseHeaders(ex.responseHeaders, ex.body.byteLength)
      : ex.responseHeaders.map(([name, value]): [string, string] => [name, value]);
  const record = WARCRecord.create({
    url: ex.url,
    date: ex.fetchedAt.toISOString(),
    type: 'revisit',
    warcVersion: WARC_1_1,
    warcHeaders,
    statusline,
    httpHeaders,
  });
  // warcio always writes the identical-payload-digest profile, and leaves out the HTTP block
  // of a revisit without headers (a 304 may have none): the status line must still be there.
  record.warcHeaders.headers.set('WARC-Profile', REVISIT_PROFILE_URIS[revisit.profile]);
  record.httpHeaders ??= new StatusAndHeaders({ statusline, headers: new HeadersMultiMap() });

  const payloadDigest = original.payloadDigest ?? '';
  return {
    bytes: serializeRecord(record, EMPTY, payloadDigest || null, gzipLevel),
    recordId,
    payloadDigest,
  };
}

/** What is known of the original; throws WARC_BAD_REVISIT when the profile needs more. */
function checkedOriginal(revisit: Revisit): Partial<EarlierCapture> {
  const original: Partial<EarlierCapture> = revisit.original ?? {};
  const badDate = original.date !== undefined && Number.isNaN(original.date.getTime());
  const missing =
    revisit.profile === 'identical-payload-digest'
      ? (['recordId', 'url', 'date', 'payloadDigest'] as const).filter((f) => !original[f])
      : [];
  if (badDate || missing.length > 0) {
    throw new WarcError(
      'WARC_BAD_REVISIT',
      badDate
        ? 'revisit original.date is an invalid Date'
        : `${revisit.profile} revisit needs original.${missing.join(', original.')}`,
    );
  }
  return original;
}

function bracketed(recordId: string): string {
  return recordId.startsWith('<') ? recordId : `<${recordId}>`;
}
