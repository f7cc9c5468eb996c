import { describe, expect, it } from 'vitest';
import { checkTrapRules, DEFAULT_TRAP_LIMITS } from './check-trap-rules';

describe('checkTrapRules', () => {
  it('passes ordinary URLs', () => {
    expect(checkTrapRules('http://a.test/docs/guide/intro?x=1', 2)).toBeNull();
    expect(checkTrapRules('http://a.test/', 0)).toBeNull();
    expect(checkTrapRules('http://a.test/a/a', 1)).toBeNull();
  });
  it('flags repeated segment runs', () => {
    expect(checkTrapRules('http://a.test/loop/a/a/a/', 1)).toBe('repeated_segments');
    expect(checkTrapRules('http://a.test/a/b/a/b/', 1)).toBe('repeated_segments');
    expect(checkTrapRules('http://a.test/x/a/b/c/a/b/c/', 1)).toBe('repeated_segments');
  });
  it('flags more than maxHops same-host hops from a page another host links to', () => {
    expect(checkTrapRules('http://a.test/p', 1, undefined, 3)).toBeNull();
    expect(checkTrapRules('http://a.test/p', 1, undefined, 4)).toBe('too_many_hops');
    expect(
      checkTrapRules('http://a.test/p', 1, { ...DEFAULT_TRAP_LIMITS, maxHops: 10 }, 4),
    ).toBeNull();
  });
  it('flags length, path depth and hops', () => {
    expect(checkTrapRules(`http://a.test/${'x'.repeat(2100)}`, 0)).toBe('url_too_long');
    expect(
      checkTrapRules(`http://a.test/${Array.from({ length: 17 }, (_, i) => `s${i}`).join('/')}`, 0),
    ).toBe('path_too_deep');
    expect(checkTrapRules('http://a.test/p', 9)).toBe('too_deep');
  });
});
