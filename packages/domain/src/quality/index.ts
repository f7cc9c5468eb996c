export { urlShape, urlFamily, paramSet, withoutParams, type UrlShape } from './url-shape';
export { LinkMemory, countNovelty, LINK_MEMORY_GENERATION, type PageNovelty } from './link-novelty';
export {
  DEFAULT_QUALITY_LIMITS,
  qualityLimitsFrom,
  type QualityLimits,
  type QualityRule,
} from './quality-limits';
export {
  HostQuality,
  titleShape,
  hostQualitySchema,
  type HostQualityData,
  type ScreenVerdict,
  type FetchObservation,
} from './host-quality';
