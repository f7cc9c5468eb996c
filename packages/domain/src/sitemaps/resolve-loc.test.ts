import { describe, expect, it } from 'vitest';
import { resolveLoc, sitemapScope } from './resolve-loc';

describe('resolveLoc', () => {
  const scope = sitemapScope('https://Ex.com:443/catalog/sitemap.xml');

  it('derives the scope: origin and directory', () => {
    expect(scope).toMatchObject({ origin: 'https://ex.com', dir: '/catalog/' });
    expect(sitemapScope('ftp://ex.com/s.xml')).toBeNull();
    expect(sitemapScope('/relative.xml')).toBeNull();
  });

  it('accepts absolute http(s) URLs and serializes them', () => {
    expect(resolveLoc(' HTTPS://EX.com/catalog/a b ', scope, 'urlset')).toEqual({
      ok: true,
      url: 'https://ex.com/catalog/a%20b',
      outOfScope: null,
    });
  });

  it('resolves relative XML locs but not text lines', () => {
    expect(resolveLoc('x.html', scope, 'urlset')).toMatchObject({
      url: 'https://ex.com/catalog/x.html',
    });
    expect(resolveLoc('x.html', scope, 'text')).toMatchObject({ ok: false });
    expect(resolveLoc('x.html', null, 'urlset')).toMatchObject({ ok: false });
  });

  it('flags other hosts, schemes, ports and directories; an index is checked by host only', () => {
    expect(resolveLoc('https://www.ex.com/catalog/a', scope, 'urlset')).toMatchObject({
      outOfScope: 'host',
    });
    expect(resolveLoc('http://ex.com/catalog/a', scope, 'urlset')).toMatchObject({
      outOfScope: 'host',
    });
    expect(resolveLoc('https://ex.com:8443/catalog/a', scope, 'urlset')).toMatchObject({
      outOfScope: 'host',
    });
    expect(resolveLoc('https://ex.com/catalogue', scope, 'urlset')).toMatchObject({
      outOfScope: 'path',
    });
    expect(resolveLoc('https://ex.com/other/s.xml', scope, 'sitemapindex')).toMatchObject({
      outOfScope: null,
    });
  });

  it('rejects empty, overlong and non-http locs', () => {
    expect(resolveLoc('  ', scope, 'urlset')).toEqual({ ok: false, reason: 'empty loc' });
    expect(resolveLoc(`https://ex.com/${'a'.repeat(2048)}`, scope, 'urlset')).toMatchObject({
      ok: false,
    });
    expect(resolveLoc(`https://ex.com/catalog/${'a'.repeat(2000)}`, scope, 'urlset')).toMatchObject(
      { ok: true },
    );
    for (const bad of [
      'mailto:a@ex.com',
      'data:text/html,hi',
      'javascript:x',
      'http://',
      'https://[::1',
    ]) {
      expect(resolveLoc(bad, scope, 'urlset'), bad).toMatchObject({ ok: false });
    }
  });
});
