import { describe, expect, it } from 'vitest';
import {
  hexValue,
  isUnreserved,
  normalizePercentEncoding,
  percentCodePoint,
} from './normalize-percent-encoding';

describe('normalizePercentEncoding', () => {
  it('decodes unreserved characters and uppercases the rest', () => {
    expect(normalizePercentEncoding('/%66oo.ht%6d%6c', 'path')).toBe('/foo.html');
    expect(normalizePercentEncoding('/%7e%2d%2E%5F', 'path')).toBe('/~-._');
    expect(normalizePercentEncoding('/a%2fb%c0%2a', 'path')).toBe('/a%2Fb%C0%2A');
  });

  it('leaves reserved characters and their encodings apart', () => {
    expect(normalizePercentEncoding("/!$&'()*+,;=:@/", 'path')).toBe("/!$&'()*+,;=:@/");
    expect(normalizePercentEncoding('q=a%26b&c=%3D+', 'query')).toBe('q=a%26b&c=%3D+');
  });

  it('encodes a stray percent sign', () => {
    expect(normalizePercentEncoding('/p%zz%77%v', 'path')).toBe('/p%25zzw%25v');
    expect(normalizePercentEncoding('q=%', 'query')).toBe('q=%25');
    expect(normalizePercentEncoding('q=%2', 'query')).toBe('q=%252');
  });

  it('encodes characters that may not appear raw', () => {
    expect(normalizePercentEncoding('/a b"<>[]^`{|}\\', 'path')).toBe(
      '/a%20b%22%3C%3E%5B%5D%5E%60%7B%7C%7D%5C',
    );
    expect(normalizePercentEncoding('/\u0001\u007f', 'path')).toBe('/%01%7F');
    expect(normalizePercentEncoding('/ñ€😀', 'path')).toBe('/%C3%B1%E2%82%AC%F0%9F%98%80');
  });

  it('keeps ? raw in a query but not in a path', () => {
    expect(normalizePercentEncoding('a?b', 'query')).toBe('a?b');
    expect(normalizePercentEncoding('/a?b', 'path')).toBe('/a%3Fb');
  });

  it('is idempotent', () => {
    for (const s of ['/%zz%', '/ñ%c3%b1', '/%2541', '/a b%20c']) {
      const once = normalizePercentEncoding(s, 'path');
      expect(normalizePercentEncoding(once, 'path')).toBe(once);
    }
  });

  it('encodes a lone surrogate as U+FFFD', () => {
    expect(percentCodePoint(0xd800)).toBe('%EF%BF%BD');
  });

  it('classifies hex digits and unreserved characters', () => {
    expect(['0', '9', 'a', 'F', 'g'].map((c) => hexValue(c.charCodeAt(0)))).toEqual([
      0, 9, 10, 15, -1,
    ]);
    expect(isUnreserved('~'.charCodeAt(0))).toBe(true);
    expect(isUnreserved('*'.charCodeAt(0))).toBe(false);
  });
});
