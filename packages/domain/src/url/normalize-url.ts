import { normalizePercentEncoding } from './normalize-percent-encoding';
import { normalizeQuery } from './normalize-query';

/**
 * Stable codes for a URL the normalizer refuses:
 * - `empty`: nothing to parse (and no base to fall back on);
 * - `invalid`: not a URL by the WHATWG URL standard (bad host, bad IDN, bad port, …);
 * - `scheme`: a scheme other than http/https (`mailto:`, `javascript:`, `ftp:`, `file:`, …);
 * - `too_long`: longer than `maxLength` (a crawler-trap defence);
 * - `empty_host`: an http(s) URL without a host (`http:///`, `https://./`).
 */
export type NormalizeRejectReason = 'empty' | 'invalid' | 'scheme' | 'too_long' | 'empty_host';

/** Outcome of {@link normalizeUrl}: the normalized URL and its host, or why it was refused. */
export type NormalizeResult =
  | { ok: true; url: string; host: string }
  | { ok: false; reason: NormalizeRejectReason; detail: string };

/** Options of {@link normalizeUrl}. */
export interface NormalizeOptions {
  /** Longest normalized URL accepted, in UTF-16 code units (all ASCII after normalization). */
  maxLength?: number;
}

/** Default of {@link NormalizeOptions.maxLength}: the brief's URL length trap limit. */
export const DEFAULT_MAX_URL_LENGTH = 2048;

/**
 * Inputs longer than `maxLength` times this are refused before parsing: percent-decoding
 * can shrink a URL by at most 3×, so such an input cannot come out short enough, and
 * parsing megabyte hrefs is a cheap denial of service.
 */
const INPUT_LENGTH_FACTOR = 4;

/** Starts with a scheme (`x:`); group 1 is the scheme. */
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
/** Looks like `host.tld[:port][/…]` or `//host…`: a URL typed without its scheme. */
const SCHEMELESS_HOST = /^(?:\/\/)?[^\s/?#:@.\\]+(?:\.[^\s/?#:@.\\]+)+\.?(?::\d*)?(?:[/?#]|$)/;
/**
 * A session id carried as a path parameter (`;jsessionid=…`, `;phpsessid=…`, `;sid=…`,
 * `;sessionid=…`, any case), removed as crawler-commons' basic normalizer does: one page would
 * otherwise get a new URL on every visit.
 */
const PATH_SESSION_ID = /;(?:jsessionid|phpsessid|sid|sessionid)=[^;/]*/gi;
/** An http(s) URL with nothing where the host should be. */
const EMPTY_HOST = /^https?:[\\/]*(?:[?#]|$)/i;

function reject(reason: NormalizeRejectReason, detail: string): NormalizeResult {
  return { ok: false, reason, detail };
}

function parse(input: string, base?: URL): URL | null {
  try {
    return new URL(input, base);
  } catch {
    return null;
  }
}

/**
 * Normalizes for the seen-check: http/https only; lowercase scheme+host; IDN to punycode;
 * drop fragment and default port; resolve dot segments; percent-encoding normalized (decode
 * unreserved, uppercase hex, encode what must be); sort query params (stable for equal keys);
 * strip tracking params (utm_*, fbclid, gclid, dclid, msclkid, mc_cid, mc_eid, _ga, yclid);
 * drop a trailing '?'; empty path -> '/'; trailing dot of host removed; rejects URLs longer
 * than maxLength (default 2048). Never throws. `base` resolves relative references (pass the
 * page URL or its <base href> already resolved).
 *
 * Further rules of ours (each one keeps two spellings of one page from being crawled twice):
 * - runs of `/` in the path collapse to one (`//a//b` → `/a/b`);
 * - session ids in path parameters are removed (`/a;jsessionid=1F2?x` → `/a?x`; also
 *   `;phpsessid=`, `;sid=`, `;sessionid=`, any case);
 * - user info (`user:pass@`) is dropped: a crawler never sends credentials found in links;
 * - query parameters with an empty key are dropped, and `b=` is written `b`;
 * - without a `base`, a scheme-less `host.tld/path` (or `//host/path`) is read as `http://`;
 * - an empty input resolves to `base` itself (an `href=""` links to the page).
 *
 * Parsing follows the WHATWG URL standard (`new URL`), so the result is what a browser
 * would fetch. The function is idempotent: normalizing its output returns the same URL.
 *
 * @param input an absolute URL or a reference relative to `base`
 * @param base the effective base of the page the reference was found on
 * @param opts `maxLength` (default {@link DEFAULT_MAX_URL_LENGTH})
 */
export function normalizeUrl(
  input: string,
  base?: string,
  opts?: NormalizeOptions,
): NormalizeResult {
  try {
    return normalizeOrReject(input, base, opts?.maxLength ?? DEFAULT_MAX_URL_LENGTH);
  } catch (err) {
    return reject('invalid', `unexpected error: ${err instanceof Error ? err.message : 'unknown'}`);
  }
}

function normalizeOrReject(
  input: string,
  base: string | undefined,
  maxLength: number,
): NormalizeResult {
  if (typeof input !== 'string') return reject('invalid', 'input is not a string');
  if (input.length > maxLength * INPUT_LENGTH_FACTOR) {
    return reject('too_long', `input is ${input.length} characters, limit ${maxLength}`);
  }
  const url = parseInput(input, base);
  if (typeof url === 'string') {
    if (url === 'empty') return reject('empty', 'empty URL');
    const trimmed = trimControls(input);
    if (EMPTY_HOST.test(trimmed)) return reject('empty_host', 'URL has no host');
    const scheme = SCHEME.exec(trimmed)?.[1]?.toLowerCase();
    if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') {
      return reject('scheme', `scheme "${scheme}" is not crawled (http and https only)`);
    }
    return reject('invalid', url);
  }

  const scheme = url.protocol;
  if (scheme !== 'http:' && scheme !== 'https:') {
    return reject('scheme', `scheme "${scheme.slice(0, -1)}" is not crawled (http and https only)`);
  }
  const host = stripTrailingDots(url.hostname);
  if (host === '') return reject('empty_host', 'URL has no host');
  // "foo.09.." is a valid domain but "foo.09" is not (it ends in a number and is no IPv4):
  // a host that lost its dots must still parse as a host.
  if (host !== url.hostname && parse(`http://${host}/`)?.hostname !== host) {
    return reject('invalid', `host "${clip(url.hostname)}" is invalid without its trailing dot`);
  }

  const path = normalizePercentEncoding(
    url.pathname.replace(/\/{2,}/g, '/').replace(PATH_SESSION_ID, ''),
    'path',
  );
  const query = normalizeQuery(url.search.slice(1));
  const port = url.port === '' ? '' : `:${url.port}`;
  const out = `${scheme}//${host}${port}${path === '' ? '/' : path}${query === '' ? '' : `?${query}`}`;
  if (out.length > maxLength) {
    return reject('too_long', `normalized URL is ${out.length} characters, limit ${maxLength}`);
  }
  return { ok: true, url: out, host };
}

/** The parsed URL, or the reason parsing failed (`'empty'` or a message). */
function parseInput(input: string, base: string | undefined): URL | string {
  if (base !== undefined) {
    const baseUrl = parse(base);
    const url = baseUrl === null ? parse(input) : parse(input, baseUrl);
    if (url !== null) return url;
    return baseUrl === null
      ? `not an absolute URL and the base "${clip(base)}" is invalid`
      : `cannot parse "${clip(input)}"`;
  }
  const trimmed = trimControls(input);
  if (trimmed === '') return 'empty';
  const url = parse(input);
  if (url !== null) return url;
  if (!SCHEME.test(trimmed) && SCHEMELESS_HOST.test(trimmed)) {
    const guessed = parse(`http://${trimmed.replace(/^\/\//, '')}`);
    if (guessed !== null) return guessed;
  }
  return `cannot parse "${clip(input)}"`;
}

/** Strips leading and trailing C0 controls and spaces, as the WHATWG URL parser does. */
function trimControls(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  return s.slice(start, end);
}

function stripTrailingDots(host: string): string {
  let end = host.length;
  while (end > 0 && host.charCodeAt(end - 1) === 46) end--;
  return end === host.length ? host : host.slice(0, end);
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
