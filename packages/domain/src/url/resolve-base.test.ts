import { describe, expect, it } from 'vitest';
import { resolveBase } from './resolve-base';

describe('resolveBase', () => {
  const page = 'https://example.org/dir/page.html?q=1';

  it('returns the page URL when there is no base href', () => {
    expect(resolveBase(page, undefined)).toBe(page);
    expect(resolveBase(page, '')).toBe(page);
    expect(resolveBase(page, '   ')).toBe(page);
  });

  it('resolves a relative base href against the page', () => {
    expect(resolveBase(page, '/other/')).toBe('https://example.org/other/');
    expect(resolveBase(page, '../up/')).toBe('https://example.org/up/');
    expect(resolveBase(page, '//cdn.example.org/b/')).toBe('https://cdn.example.org/b/');
  });

  it('takes an absolute base href as is', () => {
    expect(resolveBase(page, 'http://mirror.example.net/x/')).toBe('http://mirror.example.net/x/');
  });

  it('ignores an invalid, data: or javascript: base href', () => {
    expect(resolveBase(page, 'http://exa mple.com/')).toBe(page);
    expect(resolveBase(page, 'javascript:alert(1)')).toBe(page);
    expect(resolveBase(page, 'data:text/html,x')).toBe(page);
  });

  it('uses an absolute base href even when the page URL is unusable', () => {
    expect(resolveBase('', 'https://example.org/')).toBe('https://example.org/');
    expect(resolveBase('garbage', 'https://example.org/a')).toBe('https://example.org/a');
    expect(resolveBase('garbage', 'relative/')).toBe('garbage');
  });
});
