import { z } from 'zod';
import { DEFAULT_QUALITY_LIMITS as Q } from '../quality/quality-limits';
import { bool, int } from './env-fields';

/**
 * The crawl-quality variables of the configuration (docs/CONFIGURATION.md says why each
 * default), spread into its schema; the defaults live in one place (packages/domain/src/quality).
 */
export const qualityEnv = {
  /** Near-identical pages that close a URL family. */
  QUALITY_FAMILY_CLOSE_AFTER: int(1, 1000).default(Q.familyCloseAfter),
  /** SimHash bits within which two pages of one URL family count as near-identical. */
  QUALITY_NEAR_BITS: int(0, 32).default(Q.nearBits),
  /** Highest pager page (`page=N`, `/page/N/`) followed. */
  QUALITY_MAX_PAGER_DEPTH: int(1, 100_000).default(Q.maxPagerDepth),
  /** Most query parameters one URL may combine (faceted navigation). */
  QUALITY_MAX_QUERY_PARAMS: int(1, 100).default(Q.maxQueryParams),
  /** Most parameter-name combinations one URL family may use (faceted navigation). */
  QUALITY_MAX_FACET_COMBOS: int(1, 60).default(Q.maxFacetCombos),
  /** Probe each host once with a random path to recognise soft 404s. */
  QUALITY_SOFT404_PROBE: bool.default(true),
  /** SimHash bits within which a 200 answer matches the host's soft-404 answer. */
  QUALITY_SOFT404_BITS: int(0, 32).default(Q.soft404Bits),
  /** Fetches of a host (per day) before its exact-duplicate share is judged. */
  QUALITY_DUP_MIN_FETCHES: int(1, 1_000_000).default(Q.dupMinFetches),
  /** Share of exact-duplicate bodies that cuts a host's daily budget. */
  QUALITY_DUP_SHARE: z.coerce.number().min(0).max(1).default(Q.dupShare),
  /** A duplicate-heavy host may still get this many times its distinct bodies today. */
  QUALITY_DUP_BUDGET_FACTOR: z.coerce.number().min(0).max(1000).default(Q.dupBudgetFactor),
  /** New out-of-family links a page must bring not to repeat its URL family (0 = rule off). */
  QUALITY_NOVELTY_MIN_LINKS: int(0, 1000).default(Q.noveltyMinLinks),
  /** Pages a URL family must have before the novelty rule judges it. */
  QUALITY_NOVELTY_MIN_PAGES: int(1, 1_000_000).default(Q.noveltyMinPages),
  /** Closed URL families that make a host trap-heavy (its priority class lowered once). */
  QUALITY_TRAP_HEAVY_FAMILIES: int(1, 1000).default(Q.trapHeavyFamilies),
};
