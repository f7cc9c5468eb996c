import { createHash, hash } from 'node:crypto';

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (upper case, `=` padded), the encoding WARC digests use. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/** `sha1:` + base32 SHA-1 of the concatenated parts (what WARC readers expect). */
export function sha1Digest(...parts: Uint8Array[]): string {
  // One part: the one-shot API, which skips building a Hash object.
  if (parts.length === 1) return `sha1:${base32(hash('sha1', parts[0]!, 'buffer'))}`;
  const h = createHash('sha1');
  for (const part of parts) h.update(part);
  return `sha1:${base32(h.digest())}`;
}

/** `sha1Digest()` of no bytes: the payload digest of every record without a payload. */
export const EMPTY_SHA1_DIGEST = sha1Digest(new Uint8Array(0));

/**
 * Checks a WARC digest header (`sha1:` or `sha256:`, base32 or hex) against the bytes.
 * Unknown algorithms count as a mismatch: we cannot vouch for them.
 */
export function digestMatches(header: string, parts: Uint8Array[]): boolean {
  const colon = header.indexOf(':');
  if (colon < 0) return false;
  const algo = header.slice(0, colon).toLowerCase().replace('-', '');
  const expected = header.slice(colon + 1).trim();
  if (algo !== 'sha1' && algo !== 'sha256') return false;
  const hash = createHash(algo);
  for (const part of parts) hash.update(part);
  const digest = hash.digest();
  return /^[0-9a-f]+$/i.test(expected) && expected.length === digest.length * 2
    ? expected.toLowerCase() === digest.toString('hex')
    : expected.toUpperCase().replace(/=+$/, '') === base32(digest).replace(/=+$/, '');
}
