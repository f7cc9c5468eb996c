import { describe, expect, it } from 'vitest';
import { normalizeQuery } from './normalize-query';

describe('normalizeQuery', () => {
  it('sorts by key, keeping the order of equal keys', () => {
    expect(normalizeQuery('b=1&a=1')).toBe('a=1&b=1');
    expect(normalizeQuery('b=2&a=z&a=y&c&a=x')).toBe('a=z&a=y&a=x&b=2&c');
  });

  it('strips tracking parameters', () => {
    expect(normalizeQuery('utm_source=x&id=3&fbclid=abc&UTM_campaign=y&gclid=1')).toBe('id=3');
    expect(normalizeQuery('utm_source=x')).toBe('');
  });

  it('drops empty parameters and the = of empty values', () => {
    expect(normalizeQuery('&b=1&a=1&')).toBe('a=1&b=1');
    expect(normalizeQuery('=1&a=1')).toBe('a=1');
    expect(normalizeQuery('a=1&b=')).toBe('a=1&b');
    expect(normalizeQuery('a==')).toBe('a==');
  });

  it('does not split on ; and keeps encoded delimiters', () => {
    expect(normalizeQuery('q=tl;dr')).toBe('q=tl;dr');
    expect(normalizeQuery('m=10&q=a%26b')).toBe('m=10&q=a%26b');
    expect(normalizeQuery('http%3A%2F%2Fx.com%2Fb')).toBe('http%3A%2F%2Fx.com%2Fb');
  });

  it('normalizes percent-encoding in keys and values', () => {
    expect(normalizeQuery('%61=%7e&q=foobar%&x[y]=1')).toBe('a=~&q=foobar%25&x%5By%5D=1');
  });

  it('returns an empty string for an empty query', () => {
    expect(normalizeQuery('')).toBe('');
    expect(normalizeQuery('&&')).toBe('');
  });
});
