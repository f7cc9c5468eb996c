import type { ObjectStore } from '@crawler/adapters/storage';
import { StorageError } from '@crawler/adapters/storage';
import { readWarcRecordFromStore, WarcError } from '@crawler/adapters/warc';
import { AppError } from '../api/app-error';
import { MAX_BODY_TEXT_BYTES, readCaptureInput, type CaptureView } from './read-capture.types';

/**
 * `GET /v1/captures`: one WARC record read back from object storage by its CDX location, its
 * digests checked, the body as text for the console.
 */
export async function readCapture(
  deps: { warcStore: ObjectStore },
  raw: unknown,
): Promise<CaptureView> {
  const { key, offset, length } = readCaptureInput.parse(raw);
  try {
    if (!(await deps.warcStore.exists(key)))
      throw new AppError('NOT_FOUND', `key: no WARC file ${key}`);
    const rec = await readWarcRecordFromStore(deps.warcStore, key, offset, length);
    const body = rec.payload.subarray(0, MAX_BODY_TEXT_BYTES);
    return {
      warc_headers: rec.headers,
      http_status: rec.httpStatus,
      http_headers: rec.httpHeaders ?? {},
      body: new TextDecoder('utf-8', { fatal: false }).decode(body),
      truncated: rec.payload.length > MAX_BODY_TEXT_BYTES,
      body_bytes: rec.payload.length,
      digests_ok: rec.digestsOk,
    };
  } catch (err) {
    if (err instanceof StorageError) {
      if (err.code === 'STORAGE_NOT_FOUND')
        throw new AppError('NOT_FOUND', `key: no WARC file ${key}`);
      if (err.code === 'STORAGE_BAD_KEY') throw new AppError('BAD_REQUEST', `key: ${err.message}`);
      if (err.code === 'STORAGE_BAD_RANGE')
        throw new AppError('BAD_REQUEST', `offset, length: ${err.message}`);
      if (err.code === 'STORAGE_UNAVAILABLE') throw new AppError('UNAVAILABLE', err.message);
    }
    if (err instanceof WarcError && err.code === 'WARC_BAD_RECORD')
      throw new AppError(
        'BAD_REQUEST',
        `offset, length: no WARC record at ${offset} (+${length}) of ${key}: ${err.message}`,
      );
    throw err;
  }
}
