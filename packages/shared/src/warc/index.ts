/**
 * WARC storage: WARC/1.1 files, one gzip member per record, written with warcio and readable
 * by any WARC tool. Files live under a local root folder (the object-storage default).
 */
export type { HttpExchange, WarcLocation, WarcReadRecord, WarcWriterOptions } from './types';
export { WarcWriter } from './warc-writer';
export { WarcError, type WarcErrorCode } from './warc-errors';
export { readWarcFile, readWarcRecordAt } from './read-warc';
