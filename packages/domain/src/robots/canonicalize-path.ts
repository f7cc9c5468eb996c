import {
  escapedByteAt,
  normalizePercentWith,
  percentByte,
  percentCodePoint,
} from '../url/normalize-percent-encoding';

/**
 * The two spellings robots rules and URL paths are compared in.
 *
 * RFC 9309 (§2.2.2) compares octets after percent-decoding what need not be encoded, and
 * two reference suites disagree on how far that goes: crawler-commons treats `Disallow:
 * /%62%61%7A` as `/baz` and `%2A`/`%24` as `*`/`$`, while Google's suite says `Allow:
 * /%62%61%7A` does NOT allow `/baz`. We satisfy both by always erring toward not fetching:
 * Disallow rules are matched in the loose form (every equivalent spelling matches), Allow
 * rules in the strict form (only the spelling written, up to the case of hex digits).
 */

/** Characters kept raw in the loose form: unreserved, and reserved ones whose encoding means something else. */
const LOOSE_KEEP: boolean[] = (() => {
  const t = new Array<boolean>(128).fill(false);
  const keep = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!&'()+,;=:@/?";
  for (let i = 0; i < keep.length; i++) t[keep.charCodeAt(i)] = true;
  return t;
})();
const LOOSE_CLEAN = /^[A-Za-z0-9\-._~!&'()+,;=:@/?]*$/;
const STRICT_CLEAN = /^[\x21-\x24\x26-\x7e]*$/;

/**
 * Loose form, used for Disallow rules and the URL they are matched against: `%xx` of an
 * unreserved character decoded, other `%xx` uppercased, a stray `%` as `%25`, and every
 * character that may be written either way (`*`, `$`, space, `"<>[\]^` `` ` `` `{|}`, `#`,
 * controls, non-ASCII as UTF-8) percent-encoded. `%2F` and `/` stay different, as do `%3F`
 * and `?`, `%26` and `&`: those encodings change what the URL means.
 */
export function toLooseForm(text: string): string {
  if (LOOSE_CLEAN.test(text)) return text;
  return normalizePercentWith(text, LOOSE_KEEP);
}

/**
 * Strict form, used for Allow rules and the URL they are matched against: only the hex
 * digits of `%xx` are uppercased. With `encodeRaw` (rule patterns), controls, space and
 * non-ASCII characters are percent-encoded as UTF-8, as a robots.txt may write `/ツ` for
 * `/%E3%83%84`; a URL's raw characters are left as they are (Google's suite: a URL is
 * expected to arrive percent-encoded).
 */
export function toStrictForm(text: string, encodeRaw: boolean): string {
  if (STRICT_CLEAN.test(text) || (!encodeRaw && !text.includes('%'))) return text;
  let out = '';
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    if (code === 37 /* % */) {
      const byte = escapedByteAt(text, i);
      out += byte >= 0 ? percentByte(byte) : '%';
      i += byte >= 0 ? 3 : 1;
    } else if (encodeRaw && (code <= 0x20 || code >= 0x7f)) {
      const cp = text.codePointAt(i) ?? 0xfffd;
      out += percentCodePoint(cp);
      i += cp > 0xffff ? 2 : 1;
    } else {
      out += text[i];
      i += 1;
    }
  }
  return out;
}
