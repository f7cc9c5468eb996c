import type { ObjectStore } from '../storage/types';
import { parseWarcRecord } from './read-warc';
import type { WarcReadRecord } from './types';

/**
 * Reads the one record at (`key`, `offset`, `length`) of a WARC file in object storage (values
 * from a {@link WarcLocation} or a CDX row): one ranged read, then the same parsing and digest
 * checks as `readWarcRecordAt`. Store failures are StorageErrors (STORAGE_NOT_FOUND,
 * STORAGE_BAD_RANGE, …); bytes that are no record are WARC_BAD_RECORD.
 */
export async function readWarcRecordFromStore(
  store: ObjectStore,
  key: string,
  offset: number,
  length: number,
): Promise<WarcReadRecord> {
  const bytes = await store.readRange(key, offset, length);
  return parseWarcRecord(bytes, key, offset);
}
