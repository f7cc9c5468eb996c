import { describe, expect, it } from 'vitest';
import { toLooseForm, toStrictForm } from './canonicalize-path';

describe('toLooseForm', () => {
  it('decodes unreserved characters and uppercases other escapes', () => {
    expect(toLooseForm('/foo/bar/%62%61%7A')).toBe('/foo/bar/baz');
    expect(toLooseForm('/topic/9%2f11/')).toBe('/topic/9%2F11/');
  });

  it('writes * and $ encoded, so %2A means * and %24 means $', () => {
    expect(toLooseForm('/search/*/')).toBe('/search/%2A/');
    expect(toLooseForm('/search/%2a/')).toBe('/search/%2A/');
    expect(toLooseForm('/$100')).toBe(toLooseForm('/%24100'));
  });

  it('keeps encodings that change meaning apart from the raw character', () => {
    expect(toLooseForm('/a%2Fb')).not.toBe(toLooseForm('/a/b'));
    expect(toLooseForm('/a?b=c&d')).toBe('/a?b=c&d');
    expect(toLooseForm('/a%3Fb')).not.toBe(toLooseForm('/a?b'));
  });

  it('encodes non-ASCII, space and unsafe characters', () => {
    expect(toLooseForm('/foo/bar/ツ')).toBe('/foo/bar/%E3%83%84');
    expect(toLooseForm('/a b|c')).toBe('/a%20b%7Cc');
    expect(toLooseForm('/90%+of')).toBe('/90%25+of');
  });
});

describe('toStrictForm', () => {
  it('only uppercases hex digits of a URL', () => {
    expect(toStrictForm('/a%2fb/%62', false)).toBe('/a%2Fb/%62');
    expect(toStrictForm('/foo/bar/ツ', false)).toBe('/foo/bar/ツ');
    expect(toStrictForm('/plain/path?x=1', false)).toBe('/plain/path?x=1');
  });

  it('encodes raw non-ASCII and space in a pattern', () => {
    expect(toStrictForm('/foo/bar/ツ', true)).toBe('/foo/bar/%E3%83%84');
    expect(toStrictForm('/a b', true)).toBe('/a%20b');
    expect(toStrictForm('/%e3%83%84', true)).toBe('/%E3%83%84');
    expect(toStrictForm('/%zz', true)).toBe('/%zz');
  });
});
