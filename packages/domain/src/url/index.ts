export {
  normalizeUrl,
  DEFAULT_MAX_URL_LENGTH,
  type NormalizeResult,
  type NormalizeRejectReason,
  type NormalizeOptions,
} from './normalize-url';
export { urlFingerprint } from './url-fingerprint';
export { hostOf } from './host-of';
export { frontierEntry, type FrontierEntry, type FrontierEntryResult } from './frontier-entry';
export { resolveBase } from './resolve-base';
export { isTrackingParam, TRACKING_PARAMS } from './strip-tracking-params';
