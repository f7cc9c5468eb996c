import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { WARCParser, type WARCRecord } from 'warcio';
import type { WarcReadRecord } from './types';
import { digestMatches } from './warc-digest';
import { WarcError } from './warc-errors';
import { splitHttpBlock } from './split-http-block';

const READ_CHUNK_BYTES = 1 << 20;

/**
 * Reads every record of a WARC file (gzip per record or uncompressed), in file order, with its
 * offset and length in the file and digests checked. Payloads are held in memory one record at
 * a time.
 */
export async function* readWarcFile(
  path: string,
  opts: { chunkBytes?: number } = {},
): AsyncIterable<WarcReadRecord> {
  const stream = createReadStream(path, { highWaterMark: opts.chunkBytes ?? READ_CHUNK_BYTES });
  const parser = new WARCParser(stream, { keepHeadersCase: true, parseHttp: false });
  try {
    for await (const record of parser) {
      const block = await record.readFully();
      yield toReadRecord(record, block, path, parser.offset, parser.recordLength);
    }
  } finally {
    stream.destroy();
  }
}

/** Reads the one record stored at `offset` with `length` bytes (values from a {@link WarcLocation}). */
export async function readWarcRecordAt(
  path: string,
  offset: number,
  length: number,
): Promise<WarcReadRecord> {
  const bytes = new Uint8Array(length);
  const handle = await open(path, 'r');
  try {
    const { bytesRead } = await handle.read(bytes, 0, length, offset);
    if (bytesRead !== length) {
      throw new WarcError(
        'WARC_BAD_RECORD',
        `${path}: ${bytesRead} of ${length} bytes at ${offset}`,
      );
    }
  } finally {
    await handle.close();
  }
  return parseWarcRecord(bytes, path, offset);
}

/**
 * Parses the bytes of exactly one record (a gzip member or an uncompressed record) that were
 * read at `offset` of `where` (a path or key, for messages). Throws WARC_BAD_RECORD when they
 * hold no record.
 */
export async function parseWarcRecord(
  bytes: Uint8Array,
  where: string,
  offset: number,
): Promise<WarcReadRecord> {
  let record: WARCRecord | null;
  try {
    record = await WARCParser.parse([bytes], { keepHeadersCase: true, parseHttp: false });
  } catch (err) {
    throw new WarcError('WARC_BAD_RECORD', `${where}: no WARC record at ${offset}`, { cause: err });
  }
  if (!record) throw new WarcError('WARC_BAD_RECORD', `${where}: no WARC record at ${offset}`);
  return toReadRecord(record, await record.readFully(), where, offset, bytes.byteLength);
}

/** Our view of a parsed record; throws WARC_BAD_RECORD for bytes that were no WARC record. */
function toReadRecord(
  record: WARCRecord,
  block: Uint8Array,
  where: string,
  offset: number,
  length: number,
): WarcReadRecord {
  // warcio reads any text as a header block; a record starts with its version line.
  if (!record.warcHeaders.statusline.startsWith('WARC/')) {
    throw new WarcError('WARC_BAD_RECORD', `${where}: no WARC record at ${offset}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of record.warcHeaders.headers) {
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const type = record.warcType;
  const isHttp = (record.warcContentType ?? '').toLowerCase().startsWith('application/http');
  const http = isHttp ? splitHttpBlock(block) : null;
  const payload = http ? http.payload : block;

  const blockDigest = record.warcBlockDigest;
  const payloadDigest = record.warcPayloadDigest;
  const digestsOk =
    (!blockDigest || digestMatches(blockDigest, [block])) &&
    (type === 'revisit' || !payloadDigest || digestMatches(payloadDigest, [payload]));

  return {
    type,
    targetUri: record.warcTargetURI ?? null,
    recordId: record.warcHeader('WARC-Record-ID') ?? '',
    date: record.warcDate ?? '',
    offset,
    length,
    httpStatus: http && (type === 'response' || type === 'revisit') ? http.status : null,
    payload,
    headers,
    httpHeaders: http ? http.headers : null,
    digestsOk,
  };
}
