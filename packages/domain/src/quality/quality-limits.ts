import type { Config } from '../config';

/**
 * Thresholds of the crawl-quality rules (environment variables in docs/CONFIGURATION.md, where
 * each default is justified).
 */
export interface QualityLimits {
  /** Consecutive near-identical pages of one URL family that close it (`template_exhausted`). */
  familyCloseAfter: number;
  /** SimHash bits within which two pages of a family count as near-identical. */
  nearBits: number;
  /** Highest page number a pager parameter (`page=`, `/page/N`) may reach (`pager_depth`). */
  maxPagerDepth: number;
  /** Most query parameters a URL may combine (`facet_explosion`). */
  maxQueryParams: number;
  /** Most parameter-name combinations one URL family may use (`facet_explosion`). */
  maxFacetCombos: number;
  /** SimHash bits within which a 200 answer matches the host's soft-404 probe answer. */
  soft404Bits: number;
  /** Fetches of a host (today) before its exact-duplicate share is judged. */
  dupMinFetches: number;
  /** Share of exact-duplicate bodies that cuts a host's budget. */
  dupShare: number;
  /** Pages a duplicate-heavy host may still get today, as a multiple of its distinct bodies. */
  dupBudgetFactor: number;
}

export const DEFAULT_QUALITY_LIMITS: QualityLimits = {
  familyCloseAfter: 2,
  nearBits: 10,
  maxPagerDepth: 50,
  maxQueryParams: 4,
  maxFacetCombos: 8,
  soft404Bits: 12,
  dupMinFetches: 20,
  dupShare: 0.5,
  dupBudgetFactor: 2,
};

/** Rules that keep a URL from being fetched, as dead-letter reasons and inspector details. */
export type QualityRule =
  | 'template_exhausted'
  | 'pager_depth'
  | 'facet_explosion'
  | 'noop_param'
  | 'soft_404'
  | 'duplicate_budget';

/** The thresholds in effect: the configuration's `QUALITY_*` values. */
export function qualityLimitsFrom(config: Config): QualityLimits {
  return {
    familyCloseAfter: config.QUALITY_FAMILY_CLOSE_AFTER,
    nearBits: config.QUALITY_NEAR_BITS,
    maxPagerDepth: config.QUALITY_MAX_PAGER_DEPTH,
    maxQueryParams: config.QUALITY_MAX_QUERY_PARAMS,
    maxFacetCombos: config.QUALITY_MAX_FACET_COMBOS,
    soft404Bits: config.QUALITY_SOFT404_BITS,
    dupMinFetches: config.QUALITY_DUP_MIN_FETCHES,
    dupShare: config.QUALITY_DUP_SHARE,
    dupBudgetFactor: config.QUALITY_DUP_BUDGET_FACTOR,
  };
}
