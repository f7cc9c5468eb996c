import { describe, expect, it } from 'vitest';
import {
  blockPatternSchema,
  compileBlockPattern,
  MAX_BLOCK_PATTERN_LENGTH,
  parseBlockPattern,
  pathOfUrl,
} from './url-block-rules';

/** The canonical form of a valid pattern (fails the test when refused). */
function canonical(raw: string): string {
  const p = parseBlockPattern(raw);
  if (!p.ok) throw new Error(`${raw}: ${p.error}`);
  return p.pattern;
}
function errorOf(raw: string): string {
  const p = parseBlockPattern(raw);
  if (p.ok) throw new Error(`${raw} was accepted as ${p.pattern}`);
  return p.error;
}
const matches = (pattern: string, path: string) =>
  compileBlockPattern(canonical(pattern)).test(path);

describe('block patterns: prefixes', () => {
  it('a pattern without * is a path prefix', () => {
    expect(matches('/private/', '/private/')).toBe(true);
    expect(matches('/private/', '/private/a/b.html')).toBe(true);
    expect(matches('/private/', '/private')).toBe(false);
    expect(matches('/private/', '/public/private/')).toBe(false);
    expect(matches('/priv', '/privacy')).toBe(true);
  });
  it('is case-sensitive, as paths are', () => {
    expect(matches('/Private/', '/private/x')).toBe(false);
  });
  it('? is one character, also in a prefix', () => {
    expect(matches('/p?ge', '/page/1')).toBe(true);
    expect(matches('/p?ge', '/pge')).toBe(false);
    expect(matches('/a?', '/a')).toBe(false);
  });
});

describe('block patterns: globs', () => {
  it('a glob with * must match the whole path; * crosses /', () => {
    expect(matches('*.pdf', '/a.pdf')).toBe(true);
    expect(matches('*.pdf', '/docs/2024/report.pdf')).toBe(true);
    expect(matches('*.pdf', '/a.pdf/view')).toBe(false);
    expect(matches('*.pdf', '/a.PDF')).toBe(false);
    expect(matches('/*/print/*', '/news/print/1')).toBe(true);
    expect(matches('/*/print/*', '/news/2024/print/')).toBe(true);
    expect(matches('/*/print/*', '/print/1')).toBe(false);
    expect(matches('/*/print/*', '/news/printer/1')).toBe(false);
  });
  it('a trailing * makes a glob a prefix; * may be empty', () => {
    expect(matches('/tag/*', '/tag/')).toBe(true);
    expect(matches('/tag/*/feed', '/tag//feed')).toBe(true);
    expect(matches('/cal/*/*/*', '/cal/2024/01/02')).toBe(true);
  });
  it('pieces between stars are found in order, without overlapping', () => {
    expect(matches('/*a*a*', '/xaya')).toBe(true);
    expect(matches('/*aa*aa', '/aaa')).toBe(false);
    expect(matches('/*ab*ba', '/aba')).toBe(false);
    expect(matches('/*ab*ba', '/abba')).toBe(true);
    expect(matches('*/x/*/x', '/x/x')).toBe(false);
    expect(matches('*/x/*/x', '/x//x')).toBe(true);
  });
  it('? inside a glob is one character', () => {
    expect(matches('/img/??.png', '/img/ab.png')).toBe(true);
    expect(matches('/img/??.png', '/img/abc.png')).toBe(false);
    expect(matches('*/p?ge-*.html', '/x/page-2.html')).toBe(true);
    expect(matches('*/p?ge-*.html', '/x/pge-2.html')).toBe(false);
  });
  it('stays fast on a long path and a pattern that cannot match', () => {
    const path = `/${'a'.repeat(2000)}`;
    const p = compileBlockPattern(canonical('/*a*a*a*a*a*a*a*b'));
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) expect(p.test(path)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('block patterns: canonical form', () => {
  it('encodes and normalizes like a normalized path', () => {
    expect(canonical('  /private/ ')).toBe('/private/');
    expect(canonical('/café/')).toBe('/caf%C3%A9/');
    expect(canonical('/caf%c3%a9/')).toBe('/caf%C3%A9/');
    expect(canonical('/%7Euser/')).toBe('/~user/');
    expect(canonical('/a//b')).toBe('/a/b');
    expect(canonical('/a/**/b')).toBe('/a/*/b');
    expect(canonical('/a"b')).toBe('/a%22b');
    expect(canonical('*.pdf')).toBe('*.pdf');
    expect(canonical('/s?arch')).toBe('/s?arch');
  });
  it('matches normalized URLs whatever the spelling of the pattern', () => {
    expect(matches('/café/', pathOfUrl('http://a.test/caf%C3%A9/menu'))).toBe(true);
  });
});

describe('block patterns: refused with a reason', () => {
  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['private/', 'must start with "/"'],
    ['?x', 'must start with "/"'],
    ['https://example.com/private/', 'not a URL'],
    ['/a b', 'space'],
    ['/a\tb', 'space'],
    ['/a#b', 'fragments'],
    ['/100%', 'hex escape'],
    ['/a%zz', 'hex escape'],
    ['/a/../b', '".." segment'],
    ['/./b', '"." or ".." segment'],
    ['/', 'matches every URL'],
    ['*', 'matches every URL'],
    ['/*', 'matches every URL'],
    ['*/*', 'matches every URL'],
    ['/*/*/*/*/*/*/*/*/*/', 'at most 8'],
    [`/${'x'.repeat(MAX_BLOCK_PATTERN_LENGTH)}`, 'at most 256'],
  ])('%j: %s', (raw, reason) => {
    expect(errorOf(raw)).toContain(reason);
  });
  it('the zod schema gives the canonical form, or the reason as its issue', () => {
    expect(blockPatternSchema.parse('/caf%c3%a9/')).toBe('/caf%C3%A9/');
    const r = blockPatternSchema.safeParse('private');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toContain('must start with "/"');
  });
});

describe('pathOfUrl', () => {
  it('cuts the path out of an absolute URL', () => {
    expect(pathOfUrl('http://a.test/x/y?q=1')).toBe('/x/y');
    expect(pathOfUrl('https://a.test:8443/x#f')).toBe('/x');
    expect(pathOfUrl('http://a.test')).toBe('/');
    expect(pathOfUrl('http://a.test?x')).toBe('/');
    expect(pathOfUrl('http://a.test/')).toBe('/');
  });
});
