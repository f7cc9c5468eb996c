import { describe, expect, it } from 'vitest';
import { hostOf } from './host-of';

describe('hostOf', () => {
  it('returns the host of a normalized URL without port', () => {
    expect(hostOf('http://example.com/a?b')).toBe('example.com');
    expect(hostOf('https://sub.example.com:8443/')).toBe('sub.example.com');
    expect(hostOf('http://127.0.0.1:8080')).toBe('127.0.0.1');
    expect(hostOf('http://[::1]:8080/x')).toBe('[::1]');
  });

  it('lowercases, punycodes and strips the trailing dot of other URLs', () => {
    expect(hostOf('HTTP://User@WWW.Example.COM./x')).toBe('www.example.com');
    expect(hostOf('http://bücher.de/')).toBe('xn--bcher-kva.de');
  });

  it('returns an empty string when there is no host', () => {
    expect(hostOf('not a url')).toBe('');
    expect(hostOf('')).toBe('');
    expect(hostOf('mailto:a@b.c')).toBe('');
  });
});
