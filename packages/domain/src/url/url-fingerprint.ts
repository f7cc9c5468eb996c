import { createHash } from 'node:crypto';

/**
 * 64-bit fingerprint of a normalized URL: the first 16 hex characters (8 bytes) of the
 * SHA-256 of its UTF-8 bytes. This is the `url_fp` every store is keyed by, so the input must
 * be the output of `normalizeUrl`: two spellings of one URL only share a fingerprint after
 * normalization.
 */
export function urlFingerprint(normalizedUrl: string): string {
  return createHash('sha256').update(normalizedUrl, 'utf8').digest('hex').slice(0, 16);
}
