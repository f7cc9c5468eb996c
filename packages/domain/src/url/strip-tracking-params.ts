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
 * Session-id parameters (as Heritrix's session-id stripping knows them): a fresh value per
 * visit turns one page into endless URLs, the classic session-id crawler trap.
 */
export const SESSION_PARAMS: ReadonlySet<string> = new Set([
  'sid',
  'sessionid',
  'session_id',
  'jsessionid',
  'phpsessid',
  'aspsessionid',
  'cfid',
  'cftoken',
]);

/**
 * True when a query parameter key is a tracking or session parameter: any `utm_*` key or one of
 * {@link TRACKING_PARAMS} or {@link SESSION_PARAMS}, compared case-insensitively. `key` is the raw key as it appears
 * in the query (already percent-normalized).
 */
export function isTrackingParam(key: string): boolean {
  const lower = key.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMS.has(lower) || SESSION_PARAMS.has(lower);
}
