export { Frontier, FrontierDataError, type FrontierOptions } from './frontier';
export { FrontierKeys, shardOf } from './keys';
export type {
  PriorCapture,
  HostPolicyNotice,
  SuffixPolicy,
  DeadLetter,
  EnqueueUrl,
  FrontierStats,
  HostLease,
  LeasedUrl,
  LeaseFailure,
  LeaseOutcome,
  UrlSource,
} from './types';
export { frontierOptions, openFrontier } from './from-config';
