/**
 * The URL patterns of the trap families and of the no-op and session parameters, shared by the
 * server, the manifest, the reference crawler and the scorer. Pure string work on canonical
 * path keys (path plus canonical query, see canonical.ts); see README "Trap families".
 */

/** Trap families the scorer counts separately (`trap_by_family`). */
export const TRAP_FAMILIES = ['calendar', 'pager', 'facet', 'session', 'soft-404', 'loop'] as const;
export type TrapFamily = (typeof TRAP_FAMILIES)[number];

/** Pager pages that list entries (`/archive?page=1..3`); later pages say "no more entries". */
export const PAGER_PAGES = 3;

/** Session-id parameter names, in a path (`;jsessionid=…`) or a query (`sid=…`); case-insensitive. */
export const SESSION_PARAMS: readonly string[] = ['jsessionid', 'phpsessid', 'sid', 'sessionid'];

/** Query parameters that never change a tree page of a `noop-params` host. */
export const NOOP_PARAMS: readonly string[] = ['print', 'ref', 'sort', 'view'];

/** No-op parameters whose page is byte-identical; the others change one word. */
export const EXACT_NOOP_PARAMS: readonly string[] = ['print', 'ref'];

/** Path prefix of the dead links of `soft-404` hosts. */
export const DEAD_LINK_PREFIX = '/legacy/';

const SESSION_PATH_PARAMS = /;(?:jsessionid|phpsessid|sid|sessionid)=[^/;?#]*/gi;
const SESSION_PATH_PARAM = /;(?:jsessionid|phpsessid|sid|sessionid)=/i;

function splitKey(pathKey: string): { path: string; pairs: string[] } {
  const q = pathKey.indexOf('?');
  if (q < 0) return { path: pathKey, pairs: [] };
  return { path: pathKey.slice(0, q), pairs: pathKey.slice(q + 1).split('&') };
}

function keyOf(pair: string): string {
  const eq = pair.indexOf('=');
  return (eq < 0 ? pair : pair.slice(0, eq)).toLowerCase();
}

function valueOf(pair: string): string {
  const eq = pair.indexOf('=');
  return eq < 0 ? '' : pair.slice(eq + 1);
}

/** The path (or path key) without session-id path parameters: `/a;jsessionid=F00/b` → `/a/b`. */
export function stripSessionPathParams(pathKey: string): string {
  const q = pathKey.indexOf('?');
  const path = q < 0 ? pathKey : pathKey.slice(0, q);
  const stripped = path.replace(SESSION_PATH_PARAMS, '');
  return q < 0 ? stripped : stripped + pathKey.slice(q);
}

/** True when the path carries a session-id path parameter or the query a session-id key. */
export function hasSessionId(pathKey: string): boolean {
  const { path, pairs } = splitKey(pathKey);
  return SESSION_PATH_PARAM.test(path) || pairs.some((p) => SESSION_PARAMS.includes(keyOf(p)));
}

/** A pager page number (`/archive?page=N`, `/archive/page/N/`), or null when not a pager URL. */
export function pagerPageOf(pathKey: string): number | null {
  const { path, pairs } = splitKey(pathKey);
  let raw: string | undefined;
  const m = /^\/archive\/page\/([^/]*)\/?$/.exec(path);
  if (m) raw = m[1];
  else if (path === '/archive') {
    const pair = pairs.find((p) => keyOf(p) === 'page');
    raw = pair === undefined ? undefined : valueOf(pair);
  }
  if (raw === undefined) return null;
  return /^[1-9]\d{0,8}$/.test(raw) ? Number(raw) : Number.NaN;
}

/**
 * The trap family of a canonical path key, or null:
 * - `session`: a session-id path parameter or query key (see {@link SESSION_PARAMS});
 * - `calendar`: `/calendar/…`, `/cal/…`, `/diary/…`, `/events?month=…`;
 * - `loop`: `/loop/…`;
 * - `pager`: a pager URL past page {@link PAGER_PAGES} (or with a page that is not a number);
 * - `facet`: `/catalog` with any query;
 * - `soft-404`: the dead links `/legacy/…`.
 */
export function trapFamilyOfPathKey(pathKey: string): TrapFamily | null {
  if (hasSessionId(pathKey)) return 'session';
  const { path, pairs } = splitKey(pathKey);
  if (path === '/calendar' || /^\/(?:calendar|cal|diary)\//.test(path)) return 'calendar';
  if (path === '/events' && pairs.some((p) => keyOf(p) === 'month')) return 'calendar';
  if (path.startsWith('/loop/')) return 'loop';
  const page = pagerPageOf(pathKey);
  if (page !== null && !(page >= 1 && page <= PAGER_PAGES)) return 'pager';
  if (path === '/catalog' && pairs.length > 0) return 'facet';
  if (path.startsWith(DEAD_LINK_PREFIX)) return 'soft-404';
  return null;
}

/** True when the query has a no-op parameter ({@link NOOP_PARAMS}). */
export function hasNoopParam(pathKey: string): boolean {
  return splitKey(pathKey).pairs.some((p) => NOOP_PARAMS.includes(keyOf(p)));
}

/** True when the query has a no-op parameter that changes a word ({@link NOOP_PARAMS} not exact). */
export function hasNearNoopParam(pathKey: string): boolean {
  return splitKey(pathKey).pairs.some((p) => {
    const k = keyOf(p);
    return NOOP_PARAMS.includes(k) && !EXACT_NOOP_PARAMS.includes(k);
  });
}

/** The path key (or absolute URL) without its no-op query parameters, pair order kept. */
export function withoutNoopParams(pathKey: string): string {
  const q = pathKey.indexOf('?');
  if (q < 0) return pathKey;
  const kept = pathKey
    .slice(q + 1)
    .split('&')
    .filter((p) => !NOOP_PARAMS.includes(keyOf(p)));
  return kept.length === 0 ? pathKey.slice(0, q) : `${pathKey.slice(0, q)}?${kept.join('&')}`;
}

/** The value of query key `key` (case-insensitive) in a path key, or undefined. */
export function queryValue(pathKey: string, key: string): string | undefined {
  const pair = splitKey(pathKey).pairs.find((p) => keyOf(p) === key);
  return pair === undefined ? undefined : valueOf(pair);
}
