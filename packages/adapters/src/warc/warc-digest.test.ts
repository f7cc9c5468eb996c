import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base32, digestMatches, sha1Digest } from './warc-digest';

describe('warc digests', () => {
  it('encodes base32 like RFC 4648 (its test vectors)', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'MY======'],
      ['fo', 'MZXQ===='],
      ['foo', 'MZXW6==='],
      ['foob', 'MZXW6YQ='],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI======'],
    ];
    for (const [input, output] of vectors) expect(base32(Buffer.from(input))).toBe(output);
  });

  it('makes sha1: digests of the concatenated parts and checks sha1/sha256 in base32 or hex', () => {
    const a = Buffer.from('hello ');
    const b = Buffer.from('world');
    expect(sha1Digest(a, b)).toBe(sha1Digest(Buffer.from('hello world')));
    expect(sha1Digest(Buffer.from('')).length).toBe('sha1:'.length + 32);
    expect(digestMatches(sha1Digest(a, b), [a, b])).toBe(true);
    expect(digestMatches(sha1Digest(a), [b])).toBe(false);
    const hex = createHash('sha256').update('x').digest('hex');
    expect(digestMatches(`sha256:${hex}`, [Buffer.from('x')])).toBe(true);
    expect(
      digestMatches(`sha256:${base32(createHash('sha256').update('x').digest())}`, [
        Buffer.from('x'),
      ]),
    ).toBe(true);
    expect(digestMatches(`md5:abc`, [Buffer.from('x')])).toBe(false);
  });
});
