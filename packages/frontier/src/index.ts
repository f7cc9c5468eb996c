export { Frontier, FrontierDataError, type FrontierOptions } from './frontier';
export { FrontierKeys, shardOf } from './keys';
export { ScriptError, ScriptReply } from './script-replies';
export type { FrontierResources } from './resources';
export { FrontierEnqueue } from './enqueue';
export {
  FrontierSeenSet,
  readSeenLayers,
  type CandidateVerdict,
  type SeenCandidate,
  type SeenCandidateCounts,
} from './seen-set';
export {
  bloomFalsePositiveRate,
  defaultSeenFpTarget,
  seenFalsePositiveRate,
  seenLayer,
  seenLayout,
  type SeenLayer,
  type SeenLayout,
  type SeenOptions,
} from './seen-layers';
export { FrontierLeases, type LeaseRef } from './leases';
export { FrontierPolicies, type HostPolicyInput } from './policies';
export { FrontierDeadLetters, type DeadLetterCursor } from './dead-letters';
export { FrontierAdmin } from './admin';
export { FrontierRecrawl, type RecrawlIntervalBounds } from './recrawl-schedule';
export { FrontierSpill, type OverflowEntry, type RefillNeed } from './spill';
export { SpillStore, type ClaimedBatch, type SpillOwnership } from './spill-store';
export { SpillFencedError } from './spill-fence';
export { SpillPump, type SpillPumpOptions, type SpillRound } from './spill-pump';
export { unpackSpillEntry } from './spill-entry';
export { headBound, type HeadBound } from './resources';
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
