import { describe, expect, it } from 'vitest';
import { extractMatchPath, removeDotSegments } from './extract-match-path';

describe('extractMatchPath', () => {
  it('keeps path, params and query, drops the fragment', () => {
    expect(extractMatchPath('http://foo.bar/a/b;p?q=1#frag')).toBe('/a/b;p?q=1');
    expect(extractMatchPath('https://user@foo.bar:8080/x')).toBe('/x');
  });

  it('returns / when there is no path', () => {
    expect(extractMatchPath('http://foo.bar')).toBe('/');
    expect(extractMatchPath('')).toBe('/');
    expect(extractMatchPath('http://foo.bar#/x')).toBe('/');
  });

  it('prepends / to a bare query', () => {
    expect(extractMatchPath('http://foo.bar?x=1')).toBe('/?x=1');
  });

  it('accepts paths and scheme-relative URLs', () => {
    expect(extractMatchPath('/a/b')).toBe('/a/b');
    expect(extractMatchPath('//foo.bar/a')).toBe('/a');
  });

  it('resolves dot segments in the path but not in the query', () => {
    expect(extractMatchPath('http://x.com/docs/../private/x')).toBe('/private/x');
    expect(extractMatchPath('http://x.com/docs/%2e%2E/private/x')).toBe('/private/x');
    expect(extractMatchPath('http://x.com/a/./b?next=/../c')).toBe('/a/b?next=/../c');
  });
});

describe('removeDotSegments', () => {
  it('follows RFC 3986 5.2.4', () => {
    expect(removeDotSegments('/a/b/c/./../../g')).toBe('/a/g');
    expect(removeDotSegments('/a/..')).toBe('/');
    expect(removeDotSegments('/a/.')).toBe('/a/');
    expect(removeDotSegments('/../../x')).toBe('/x');
    expect(removeDotSegments('/a..b/.c/..d')).toBe('/a..b/.c/..d');
    expect(removeDotSegments('/')).toBe('/');
  });
});
