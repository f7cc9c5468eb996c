import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildGzipBomb, crc32, crc32Combine, standardBomb } from './gzip-bomb.js';

describe('gzip bomb', () => {
  it('combines CRCs like hashing the concatenation', () => {
    const a = Buffer.from('hello ');
    const b = Buffer.from('world, and more');
    expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
  });

  it('inflates to exactly the announced size with a valid trailer', () => {
    for (const mib of [1, 6, 13]) {
      const bomb = buildGzipBomb(mib);
      const out = gunzipSync(bomb.gz);
      expect(out.length).toBe(bomb.inflatedBytes);
      expect(out.subarray(0, 15).toString()).toBe('<!DOCTYPE html>');
    }
  });

  it('serves ~1 GiB from about 1 MB', () => {
    const bomb = standardBomb();
    expect(bomb.inflatedBytes).toBeGreaterThan(1024 ** 3);
    expect(bomb.gz.length).toBeLessThan(1_200_000);
  });
});
