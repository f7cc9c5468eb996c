export { Frontier, FrontierDataError, type FrontierOptions } from './frontier';
export { FrontierKeys, shardOf } from './keys';
/** The scripts' include loader, for scripts beside the frontier that share its includes. */
export { loadScript } from './scripts';
export {
  DEFAULT_PRIORITY,
  DEFAULT_TIER_WEIGHTS,
  DISCOVERED_HOST_CLASS,
  FrontierInputError,
  HOST_CLASSES,
  PRIORITY_TIERS,
  siteOf,
} from './priority';
export type {
  PriorCapture,
  HostPolicyNotice,
  HostPriority,
  SuffixPolicy,
  DeadLetter,
  EnqueueUrl,
  FrontierStats,
  HostLease,
  LeasedUrl,
  QueueTier,
  LeaseFailure,
  LeaseOutcome,
  OpenLease,
  UrlSource,
} from './types';
export { frontierOptions, openFrontier } from './from-config';
