/**
 * WARC storage: WARC/1.1 files, one gzip member per record, written with warcio and readable
 * by any WARC tool. Files live under a local root folder (the object-storage default); a
 * `WarcShipper` (storage module) uploads each closed file to object storage, where
 * `readWarcRecordFromStore` reads single records back.
 */
export type {
  EarlierCapture,
  HttpExchange,
  Revisit,
  WarcLocation,
  WarcReadRecord,
  WarcWriterHealth,
  WarcWriterOptions,
} from './types';
export { WarcWriter } from './warc-writer';
export {
  filesOfGoneWriters,
  writerGone,
  WRITER_HEARTBEAT_MS,
  WRITER_STALE_MS,
} from './writer-lock';
export { buildExchange, type BuiltExchange, type GzipMember } from './build-warc-records';
export { buildRevisit, REVISIT_PROFILE_URIS } from './build-revisit';
export { WarcError, type WarcErrorCode } from './warc-errors';
export { readWarcFile, readWarcRecordAt } from './read-warc';
export { readWarcRecordFromStore } from './read-warc-from-store';
