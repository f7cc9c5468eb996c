/**
 * Redis streams read through consumer groups, at least once, on a single Redis or a cluster:
 * the building block of the telemetry ingest, the `pages.parsed` ingest and feed consumers.
 */
export {
  StreamGroupReader,
  type StreamEntry,
  type StreamEntryRef,
  type StreamGroupReaderOptions,
  type StreamGroupState,
} from './stream-group-reader';
export { parseReadReply, parseAutoclaimReply, type RawStreamEntry } from './parse-stream-reply';
