/**
 * Percent-encoding normalization for URL paths and queries (RFC 3986 §6.2.2).
 *
 * - `%xx` triplets get uppercase hex; a triplet that encodes an unreserved character
 *   (`A-Z a-z 0-9 - . _ ~`) is decoded.
 * - A `%` that does not start a valid triplet becomes `%25`.
 * - Characters that may not appear raw in the component (controls, space, `"<>[\]^` `` ` ``
 *   `{|}`, `#`, non-ASCII as UTF-8 bytes) are encoded; everything else stays as written, so
 *   `%2F`, `%26`, `%3D`, `+` and friends keep their meaning.
 */

/** Which URL component a string belongs to: the query also allows a raw `?`. */
export type UrlComponent = 'path' | 'query';

const HEX = '0123456789ABCDEF';

/** RFC 3986 pchar (unreserved, sub-delims, ':' and '@') plus '/'. */
const PATH_KEEP =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/";

function table(keep: string): boolean[] {
  const t: boolean[] = new Array<boolean>(128).fill(false);
  for (let i = 0; i < keep.length; i++) t[keep.charCodeAt(i)] = true;
  return t;
}

const KEEP: Record<UrlComponent, boolean[]> = {
  path: table(PATH_KEEP),
  query: table(PATH_KEEP + '?'),
};

/** Strings made only of characters that need no work (no '%', nothing to encode). */
const CLEAN: Record<UrlComponent, RegExp> = {
  path: /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/,
  query: /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*$/,
};

const encoder = new TextEncoder();

/** Value of one hex digit, or -1. */
export function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/** The byte the `%xx` at `i` of `text` stands for (`text[i]` is `%`), or -1 when no two hex digits follow. */
export function escapedByteAt(text: string, i: number): number {
  if (i + 2 >= text.length) return -1;
  const hi = hexValue(text.charCodeAt(i + 1));
  const lo = hi >= 0 ? hexValue(text.charCodeAt(i + 2)) : -1;
  return lo >= 0 ? hi * 16 + lo : -1;
}

/** True for the RFC 3986 unreserved characters `A-Z a-z 0-9 - . _ ~`. */
export function isUnreserved(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 45 ||
    code === 46 ||
    code === 95 ||
    code === 126
  );
}

/** `%XX` for one byte. */
export function percentByte(byte: number): string {
  return '%' + HEX[byte >> 4] + HEX[byte & 15];
}

/** Percent-encodes one code point (as UTF-8; a lone surrogate becomes U+FFFD). */
export function percentCodePoint(codePoint: number): string {
  if (codePoint < 128) return percentByte(codePoint);
  const isLoneSurrogate = codePoint >= 0xd800 && codePoint <= 0xdfff;
  const bytes = encoder.encode(String.fromCodePoint(isLoneSurrogate ? 0xfffd : codePoint));
  let out = '';
  for (const b of bytes) out += percentByte(b);
  return out;
}

/**
 * Normalizes the percent-encoding of one path or query string (see the module comment).
 * Idempotent: normalizing the result again returns it unchanged.
 */
export function normalizePercentEncoding(input: string, component: UrlComponent): string {
  if (CLEAN[component].test(input)) return input;
  return normalizePercentWith(input, KEEP[component]);
}

/**
 * The percent-normalization every caller shares: `%xx` of an unreserved character decoded, other
 * `%xx` uppercased, a stray `%` as `%25`, ASCII characters not in `keep` percent-encoded,
 * non-ASCII encoded as UTF-8. `keep[c]` is true for ASCII codes written as they are.
 */
export function normalizePercentWith(input: string, keep: readonly boolean[]): string {
  let out = '';
  for (let i = 0; i < input.length;) {
    const code = input.charCodeAt(i);
    if (code === 37 /* % */) {
      const byte = escapedByteAt(input, i);
      if (byte >= 0) {
        out += isUnreserved(byte) ? String.fromCharCode(byte) : percentByte(byte);
        i += 3;
      } else {
        out += '%25';
        i += 1;
      }
      continue;
    }
    if (code < 128) {
      out += keep[code] === true ? input[i] : percentByte(code);
      i += 1;
      continue;
    }
    const cp = input.codePointAt(i) ?? 0xfffd;
    out += percentCodePoint(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return out;
}
