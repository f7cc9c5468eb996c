import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { urlFingerprint } from './url-fingerprint';

describe('urlFingerprint', () => {
  it('is the first 16 hex chars of the SHA-256', () => {
    const u = 'http://example.com/';
    expect(urlFingerprint(u)).toBe(createHash('sha256').update(u).digest('hex').slice(0, 16));
    expect(urlFingerprint(u)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('differs between URLs and is stable', () => {
    expect(urlFingerprint('http://example.com/a')).not.toBe(urlFingerprint('http://example.com/b'));
    expect(urlFingerprint('http://example.com/a')).toBe(urlFingerprint('http://example.com/a'));
  });

  it('hashes UTF-8 bytes', () => {
    expect(urlFingerprint('ü')).toBe(
      createHash('sha256').update(Buffer.from('ü', 'utf8')).digest('hex').slice(0, 16),
    );
  });
});
