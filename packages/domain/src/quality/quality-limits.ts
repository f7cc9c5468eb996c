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
  /**
   * New out-of-family links a page must bring for its family not to count it as a repeat (the
   * novelty rule; 0 turns the rule off). A page below it that still links new pages of its own
   * family is a generator's page (a calendar's next month).
   */
  noveltyMinLinks: number;
  /** Pages a URL family must have (this one included) before the novelty rule judges it. */
  noveltyMinPages: number;
  /** Closed URL families that make a host trap-heavy: its priority class is lowered, once. */
  trapHeavyFamilies: number;
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
  noveltyMinLinks: 1,
  noveltyMinPages: 30,
  trapHeavyFamilies: 2,
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
    noveltyMinLinks: config.QUALITY_NOVELTY_MIN_LINKS,
    noveltyMinPages: config.QUALITY_NOVELTY_MIN_PAGES,
    trapHeavyFamilies: config.QUALITY_TRAP_HEAVY_FAMILIES,
  };
}
