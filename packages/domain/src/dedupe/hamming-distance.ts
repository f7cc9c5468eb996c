const SIMHASH_HEX = /^[0-9a-f]{16}$/i;

/** Set bits in a 32-bit integer. */
function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Number of differing bits (0–64) between two 64-bit hashes written as 16 hex characters, as
 * {@link simhash64} makes them. Case-insensitive.
 *
 * @throws RangeError when either argument is not exactly 16 hex characters
 */
export function hammingDistance(a: string, b: string): number {
  if (!SIMHASH_HEX.test(a) || !SIMHASH_HEX.test(b)) {
    throw new RangeError('hammingDistance: expected two 16-character hex strings');
  }
  const hi = Number.parseInt(a.slice(0, 8), 16) ^ Number.parseInt(b.slice(0, 8), 16);
  const lo = Number.parseInt(a.slice(8), 16) ^ Number.parseInt(b.slice(8), 16);
  return popcount32(hi) + popcount32(lo);
}

/**
 * Largest Hamming distance (in bits, of 64) at which two SimHashes count as near-duplicates:
 * the usual web-scale setting (Manku et al., WWW 2007).
 */
export const NEAR_DUPLICATE_MAX_BITS = 3;

/**
 * Whether two SimHashes are near-duplicates: at most `maxBits` bits apart.
 *
 * @param maxBits threshold in bits (default {@link NEAR_DUPLICATE_MAX_BITS})
 * @throws RangeError when either hash is not 16 hex characters
 */
export function isNearDuplicate(a: string, b: string, maxBits = NEAR_DUPLICATE_MAX_BITS): boolean {
  return hammingDistance(a, b) <= maxBits;
}
