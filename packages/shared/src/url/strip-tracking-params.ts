/**
 * Query parameters that only track the click (campaign tags, ad click ids) and never change
 * the page: they are removed before the seen-check so one page is not crawled once per
 * campaign.
 */
export const TRACKING_PARAMS: ReadonlySet<string> = new Set([
  'fbclid',
  'gclid',
  'dclid',
  'msclkid',
  'mc_cid',
  'mc_eid',
  '_ga',
  'yclid',
]);

/**
 * True when a query parameter key is a tracking parameter: any `utm_*` key or one of
 * {@link TRACKING_PARAMS}, compared case-insensitively. `key` is the raw key as it appears
 * in the query (already percent-normalized).
 */
export function isTrackingParam(key: string): boolean {
  const lower = key.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMS.has(lower);
}
