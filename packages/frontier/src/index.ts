export { Frontier, FrontierDataError, type FrontierOptions } from './frontier';
export { FrontierKeys, shardOf } from './keys';
export type { EnqueueUrl, FrontierStats, HostLease, LeasedUrl, LeaseOutcome } from './types';
