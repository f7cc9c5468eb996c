/**
 * URL canonicalisation shared by the server (routing), the manifest and the scorer, and the trap
 * test built on trap-patterns.ts. See README "Canonical URLs".
 */
import { trapFamilyOfPathKey } from './trap-patterns.js';

const TRACKING_KEYS = new Set(['fbclid', 'gclid']);

/** True for tracking query keys that canonicalisation drops: `utm_*`, `fbclid`, `gclid` (case-insensitive). */
export function isTrackingParam(key: string): boolean {
  const k = key.toLowerCase();
  return k.startsWith('utm_') || TRACKING_KEYS.has(k);
}

function pairKey(pair: string): string {
  const eq = pair.indexOf('=');
  return eq < 0 ? pair : pair.slice(0, eq);
}

/**
 * Canonical query string: tracking parameters and empty pairs removed, pairs sorted by key, then by
 * the whole pair (stable byte order). Pairs keep their original encoding.
 * @param search a query with or without the leading `?`.
 * @returns `''` or `?a=1&b=2`.
 */
export function canonicalQuery(search: string): string {
  const raw = search.startsWith('?') ? search.slice(1) : search;
  if (raw === '') return '';
  const pairs = raw.split('&').filter((p) => p !== '' && !isTrackingParam(pairKey(p)));
  if (pairs.length === 0) return '';
  pairs.sort((a, b) => {
    const ka = pairKey(a);
    const kb = pairKey(b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return `?${pairs.join('&')}`;
}

/**
 * Canonical absolute URL: lowercase scheme and host, trailing dot of the host and the default port
 * removed, user info and fragment dropped, dot segments resolved, tracking parameters removed and
 * query parameters sorted.
 * @param input absolute URL, or a reference resolved against `base`.
 * @returns the canonical URL, or null when it does not parse or is not http(s).
 */
export function canonicalizeUrl(input: string, base?: string): string | null {
  let u: URL;
  try {
    u = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const hostname = u.hostname.endsWith('.') ? u.hostname.slice(0, -1) : u.hostname;
  const port = u.port === '' ? '' : `:${u.port}`;
  return `${u.protocol}//${hostname}${port}${u.pathname}${canonicalQuery(u.search)}`;
}

/**
 * Canonical path plus query of a request-target (origin-form or absolute-form): dot segments
 * resolved, tracking parameters removed, query sorted, fragment dropped.
 * @returns e.g. `/news/p3.html?a=1&b=2`, or null when the target does not parse.
 */
export function canonicalPathKey(target: string): string | null {
  const full = canonicalizeUrl(target, 'http://x.invalid/');
  if (full === null) return null;
  const u = new URL(full);
  return `${u.pathname}${u.search}`;
}

/** Host name of a canonical URL (lowercase, no port), or '' if it does not parse. */
export function hostOf(url: string): string {
  try {
    const h = new URL(url).hostname;
    return h.endsWith('.') ? h.slice(0, -1) : h;
  } catch {
    return '';
  }
}

/**
 * True when a path-plus-query belongs to a trap: the endless calendars, the repeated-segment
 * loop, a session id (path parameter or query key), a pager past its last page, a faceted view or
 * a soft-404 dead link. See {@link trapFamilyOfPathKey}.
 */
export function isTrapPathKey(pathKey: string): boolean {
  return trapFamilyOfPathKey(pathKey) !== null;
}

/** True when an absolute URL is a trap URL (see {@link isTrapPathKey}). */
export function isTrapUrl(url: string): boolean {
  const key = canonicalPathKey(url);
  return key !== null && isTrapPathKey(key);
}
