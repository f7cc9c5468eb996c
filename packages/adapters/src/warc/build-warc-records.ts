import { randomUUID } from 'node:crypto';
import { WARCRecord, WARC_1_1 } from 'warcio';
import {
  recordedRequestHeaders,
  recordedResponseHeaders,
  requestLine,
  responseStatusLine,
} from './http-header-blocks';
import { serializeRecord } from './serialize-record';
import type { HttpExchange } from './types';
import { EMPTY_SHA1_DIGEST, sha1Digest } from './warc-digest';

/** One serialized record: its own gzip member, ready to append. */
export interface GzipMember {
  bytes: Uint8Array;
  recordId: string;
  /** WARC-Payload-Digest written (for a revisit, the original's), or `''` when none. */
  payloadDigest: string;
}

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** A fresh `<urn:uuid:…>` WARC-Record-ID. */
export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/**
 * WARC headers every record of an exchange starts with: its id, the server's address, and the
 * protocols that carried it — `WARC-Protocol` once per layer (`http/1.1`, `tls/1.3`) and the
 * TLS cipher suite, per the IIPC WARC-Protocol and WARC-Cipher-Suite field proposals.
 */
export function exchangeWarcHeaders(ex: HttpExchange, recordId: string): Array<[string, string]> {
  const headers: Array<[string, string]> = [['WARC-Record-ID', recordId]];
  if (ex.ip) headers.push(['WARC-IP-Address', ex.ip]);
  headers.push(['WARC-Protocol', httpProtocolId(ex.httpVersion)]);
  if (ex.tls) {
    headers.push(['WARC-Protocol', tlsProtocolId(ex.tls.protocol)]);
    headers.push(['WARC-Cipher-Suite', ex.tls.cipherSuite]);
  }
  return headers;
}

/** `1.1` → `http/1.1`; `2` → `h2` (the ALPN identifiers the proposal uses). */
function httpProtocolId(version: string): string {
  return version === '2' || version === '2.0' ? 'h2' : `http/${version}`;
}

/** Node's `TLSv1.3` → `tls/1.3` (the proposal's form). */
function tlsProtocolId(protocol: string): string {
  const m = /^TLSv(\d(?:\.\d)?)$/.exec(protocol);
  return m ? `tls/${m[1]!.includes('.') ? m[1] : `${m[1]}.0`}` : protocol.toLowerCase();
}

/**
 * The warcinfo record that opens every file. It carries a block digest but never a payload
 * digest: WARC 1.1 defines no payload for warcinfo.
 */
export async function buildWarcinfo(
  filename: string,
  info: { software: string; operator?: string },
  gzipLevel: number,
): Promise<Uint8Array> {
  const fields: Array<[string, string]> = [
    ['software', info.software],
    ['format', 'WARC File Format 1.1'],
    [
      'conformsTo',
      'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
    ],
    ['robots', 'obey'],
  ];
  if (info.operator) fields.push(['operator', info.operator]);
  const block = encoder.encode(fields.map(([name, value]) => `${name}: ${value}\r\n`).join(''));
  const record = WARCRecord.create({
    type: 'warcinfo',
    filename,
    warcVersion: WARC_1_1,
    warcHeaders: [['WARC-Record-ID', newRecordId()]],
  });
  return serializeRecord(record, block, null, gzipLevel);
}

/** The two records of one exchange, serialized and gzipped, ready to append in this order. */
export interface BuiltExchange {
  response: GzipMember;
  request: GzipMember;
}

/**
 * Response and request records of one exchange, linked both ways by WARC-Concurrent-To. Pure
 * CPU (digests, gzip): it may run in a worker thread, the result appended by
 * `WarcWriter.writeBuiltExchange`.
 */
export async function buildExchange(ex: HttpExchange, gzipLevel: number): Promise<BuiltExchange> {
  const url = new URL(ex.url);
  const date = ex.fetchedAt.toISOString();
  const responseId = newRecordId();
  const requestId = newRecordId();

  const responseWarc = exchangeWarcHeaders(ex, responseId);
  responseWarc.push(['WARC-Concurrent-To', requestId]);
  if (ex.truncated) responseWarc.push(['WARC-Truncated', ex.truncated]);
  const response = WARCRecord.create({
    url: ex.url,
    date,
    type: 'response',
    warcVersion: WARC_1_1,
    warcHeaders: responseWarc,
    statusline: responseStatusLine(ex.httpVersion, ex.status, ex.statusText),
    httpHeaders: recordedResponseHeaders(ex.responseHeaders, ex.body.byteLength),
  });

  const requestWarc = exchangeWarcHeaders(ex, requestId);
  requestWarc.push(['WARC-Concurrent-To', responseId]);
  const request = WARCRecord.create({
    url: ex.url,
    date,
    type: 'request',
    warcVersion: WARC_1_1,
    warcHeaders: requestWarc,
    statusline: requestLine(ex.method, url, ex.httpVersion),
    httpHeaders: recordedRequestHeaders(ex.requestHeaders, url),
  });

  const responseDigest = sha1Digest(ex.body);
  const requestDigest = EMPTY_SHA1_DIGEST;
  const responseBytes = serializeRecord(response, ex.body, responseDigest, gzipLevel);
  const requestBytes = serializeRecord(request, EMPTY, requestDigest, gzipLevel);
  return {
    response: { bytes: responseBytes, recordId: responseId, payloadDigest: responseDigest },
    request: { bytes: requestBytes, recordId: requestId, payloadDigest: requestDigest },
  };
}
