export { urlShape, paramSet, withoutParams, type UrlShape } from './url-shape';
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
