/**
 * Object storage for WARC files: a local folder by default, an S3-compatible bucket when
 * configured, behind one {@link ObjectStore} interface (upload a file, read a byte range, list,
 * test existence). Keys are the WarcWriter's file keys (`crawl/…/00000.warc.gz`), so a CDX row
 * (key, offset, length) reads one record back from either store. A {@link WarcShipper} uploads
 * each file the WarcWriter closes, retrying until it is stored.
 */
export type {
  ObjectEntry,
  ObjectStore,
  ObjectStoreOptions,
  ObjectStoreSettings,
  LocalStoreOptions,
  S3StoreOptions,
} from './types';
export { openObjectStore, objectStoreFromSettings } from './open-object-store';
export { StorageError, type StorageErrorCode } from './storage-errors';
export {
  keyProblem,
  validateKey,
  validatePrefix,
  MAX_KEY_BYTES,
  MAX_SEGMENT_BYTES,
} from './object-key';
export { WarcShipper, type ShipFilter } from './warc-shipper';
export type { ShippedEvent, ShipFailedEvent, WarcShipperOptions } from './warc-shipper-options';
export { SHIPPED_SUFFIX } from './shipped-marker';
