import { gzipSync } from 'node:zlib';
import type { WARCRecord } from 'warcio';
import { sha1Digest } from './warc-digest';

const encoder = new TextEncoder();
const CRLF = encoder.encode('\r\n');
const CRLFCRLF = encoder.encode('\r\n\r\n');
const EMPTY = new Uint8Array(0);
const COMPUTED_FIELDS = new Set(['warc-payload-digest', 'warc-block-digest', 'content-length']);

/**
 * Record types whose block has no well-defined payload (it is WARC fields about the crawl, not
 * captured content). WARC 1.1 says WARC-Payload-Digest "shall not be used" on those.
 */
const NO_PAYLOAD_TYPES: ReadonlySet<string> = new Set(['warcinfo', 'metadata']);

/**
 * Renders a record that warcio built (WARC headers, and for `application/http` records the
 * HTTP status line and headers) and gzips it as one member.
 *
 * We render the bytes ourselves instead of using warcio's WARCSerializer for two reasons: the
 * digests are computed here with node:crypto (~0.05 ms per 20 kB record; warcio's hash-wasm
 * ~0.5 ms), and warcio adds a WARC-Payload-Digest to every record but warcinfo, `metadata`
 * included, which WARC 1.1 forbids. The layout is warcio's own: header block, CRLF, HTTP header
 * block, payload, CRLF CRLF.
 *
 * `payloadDigest` is the WARC-Payload-Digest to write (null: none); it is dropped for warcinfo
 * and metadata records whatever the caller passes. Every record gets a WARC-Block-Digest.
 */
export function serializeRecord(
  record: WARCRecord,
  payload: Uint8Array,
  payloadDigest: string | null,
  gzipLevel: number,
): Uint8Array {
  const headers = record.warcHeaders.headers;
  const httpBlock = record.httpHeaders
    ? encoder.encode(`${record.httpHeaders.toString()}\r\n`)
    : EMPTY;
  // Ours to set, whatever the builder put there (in any letter case).
  for (const name of [...headers.keys()]) {
    if (COMPUTED_FIELDS.has(name.toLowerCase())) headers.delete(name);
  }
  if (payloadDigest !== null && !NO_PAYLOAD_TYPES.has(record.warcType)) {
    headers.set('WARC-Payload-Digest', payloadDigest);
  }
  headers.set(
    'WARC-Block-Digest',
    payload.byteLength === 0 ? sha1Digest(httpBlock) : sha1Digest(httpBlock, payload),
  );
  headers.set('Content-Length', String(httpBlock.byteLength + payload.byteLength));
  const raw = Buffer.concat([
    encoder.encode(record.warcHeaders.toString()),
    CRLF,
    httpBlock,
    payload,
    CRLFCRLF,
  ]);
  // Synchronous on purpose: measured per ~10 kB record, zlib's async API costs ~1.5× the CPU of
  // gzipSync one at a time and ~5× with many in flight (stream set-up, thread-pool hand-offs).
  return gzipSync(raw, gzipOptions(raw.byteLength, gzipLevel));
}

/** zlib's lookahead past the window (MIN_LOOKAHEAD): a window this much larger loses nothing. */
const LOOKAHEAD = 262;

/**
 * Deflate settings sized to the record. zlib's defaults (32 KiB window, memLevel 8, 16 KiB
 * output chunks) allocate and clear about 256 KiB of state per call, most of a small record's
 * cost; a window as large as the record finds every match the default one would, and a hash
 * table and output buffer sized to it cost a fraction. Big records get the defaults. Any
 * settings give a standard gzip member; only the compressed bytes differ slightly.
 */
export function gzipOptions(
  inputBytes: number,
  level: number,
): { level: number; windowBits: number; memLevel: number; chunkSize: number } {
  let windowBits = 9;
  while (windowBits < 15 && 1 << windowBits < inputBytes + LOOKAHEAD) windowBits++;
  return {
    level,
    windowBits,
    memLevel: Math.max(1, Math.min(8, windowBits - 7)),
    // Room for the whole member in one chunk (stored blocks add 5 bytes per 16 KiB at worst).
    chunkSize: Math.min(64 * 1024, Math.max(1024, inputBytes + (inputBytes >>> 10) + 64)),
  };
}
