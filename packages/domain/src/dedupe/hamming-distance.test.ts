import { describe, expect, it } from 'vitest';
import { hammingDistance, isNearDuplicate, NEAR_DUPLICATE_MAX_BITS } from './hamming-distance';

describe('hammingDistance', () => {
  it('counts differing bits over all 64', () => {
    expect(hammingDistance('0000000000000000', '0000000000000000')).toBe(0);
    expect(hammingDistance('0000000000000000', 'ffffffffffffffff')).toBe(64);
    expect(hammingDistance('8000000000000001', '0000000000000000')).toBe(2);
    expect(hammingDistance('00000000ffffffff', 'ffffffff00000000')).toBe(64);
    expect(hammingDistance('0123456789abcdef', '0123456789ABCDEF')).toBe(0);
    expect(hammingDistance('f0f0f0f0f0f0f0f0', '0f0f0f0f0f0f0f0f')).toBe(64);
    expect(hammingDistance('1000000000000000', '3000000000000000')).toBe(1);
  });

  it('is symmetric', () => {
    expect(hammingDistance('deadbeef00000000', '00000000deadbeef')).toBe(
      hammingDistance('00000000deadbeef', 'deadbeef00000000'),
    );
  });

  it('refuses anything but 16 hex characters', () => {
    expect(() => hammingDistance('abc', '0000000000000000')).toThrow(RangeError);
    expect(() => hammingDistance('000000000000000g', '0000000000000000')).toThrow(RangeError);
    expect(() => hammingDistance('0000000000000000', '00000000000000000')).toThrow(RangeError);
  });

  it('calls hashes at most 3 bits apart near-duplicates by default', () => {
    expect(NEAR_DUPLICATE_MAX_BITS).toBe(3);
    expect(isNearDuplicate('0000000000000007', '0000000000000000')).toBe(true);
    expect(isNearDuplicate('000000000000000f', '0000000000000000')).toBe(false);
    expect(isNearDuplicate('000000000000000f', '0000000000000000', 4)).toBe(true);
  });
});
