import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { simhash64 } from '@crawler/domain/dedupe';
import { discoverLinks } from './discover-links';
import {
  MAX_LINKS,
  MAX_TEXT_CHARS,
  parsePage,
  toExtractedPage,
  type ParsePageInput,
} from './parse-page';
import { samplePage } from './sample-pages';

const URL_ = 'https://example.com/dir/page.html';

function parse(html: string | Uint8Array, extra: Partial<ParsePageInput> = {}) {
  const body = typeof html === 'string' ? new TextEncoder().encode(html) : html;
  return parsePage({ url: URL_, body, contentType: 'text/html', xRobotsTag: null, ...extra });
}

describe('parsePage', () => {
  it('reads title, description, main text, links, canonical and hashes of a page', () => {
    const html = samplePage(7);
    const p = parse(html);
    expect(p.title).toBe('Page 7 & friends');
    expect(p.description).toBe('About page 7');
    expect(p.text.startsWith('Heading 7 ')).toBe(true);
    for (const boilerplate of [
      'Home',
      'Related',
      'Legal',
      'not text',
      'dataLayer',
      'font-family',
    ]) {
      expect(p.text).not.toContain(boilerplate);
    }
    expect(p.text).not.toMatch(/\s{2}/);
    expect(p.links.slice(0, 4)).toEqual([
      { href: '/', nofollow: false },
      { href: '/about', nofollow: false },
      { href: '/a', nofollow: false },
      { href: '/b', nofollow: true },
    ]);
    expect(p.links[4]?.href).toMatch(/^\/p\/7\/0(#frag)?$/);
    expect(p.canonical).toBe('https://example.com/page/7');
    expect(p).toMatchObject({ lang: 'en', langSource: 'html', charset: 'utf-8', parseError: null });
    expect(p.simhash).toBe(simhash64(p.text));
    expect(p.contentSha256).toBe(createHash('sha256').update(html).digest('hex'));
  });

  it('breaks words at block elements but not inside inline ones, and decodes entities', () => {
    const p = parse(
      '<body><div>one</div><div>two<b>three</b></div><p>caf&eacute;&nbsp;&amp; <i>x</i>y<br>z</p>' +
        '<ul><li>a<li>b</ul></body>',
    );
    expect(p.text).toBe('one twothree café & xy z a b');
  });

  it('collapses every kind of whitespace in the text as /\\s+/ does', () => {
    const texts = [
      'plain words only',
      '  leading and trailing  ',
      'tabs\tand\nnewlines\r\nand\fform feeds',
      'no\u00a0break\u2003em\u3000ideographic\u2028line\ufeffbom',
      '\n\t \n',
      'double  space',
    ];
    for (const t of texts) {
      const p = parse(`<body><p>${t}</p><div>${t}<b>${t}</b></div></body>`);
      const expected = `${t} ${t}${t}`.replace(/\s+/g, ' ').trim();
      // Block boundaries add a break where the text itself had none.
      expect(p.text.replace(/\s+/g, ' ')).toBe(p.text);
      expect(p.text.replaceAll(' ', '')).toBe(expected.replaceAll(' ', ''));
    }
    expect(parse('<p>a \u00a0 b</p><p>c\u3000\u3000d</p>').text).toBe('a b c d');
  });

  it('takes the SHA-256 of the body from the caller when given', () => {
    const html = '<p>x</p>';
    const hash = createHash('sha256').update(html).digest('hex');
    expect(parse(html).contentSha256).toBe(hash);
    expect(parse(html, { contentSha256: hash }).contentSha256).toBe(hash);
  });

  it('takes the first <title> outside SVG, and falls back to og:description', () => {
    const p = parse(
      '<svg><title>icon</title></svg><title> Real\n  title </title><title>second</title>' +
        '<meta property="og:description" content="OG text">',
    );
    expect(p.title).toBe('Real title');
    expect(p.description).toBe('OG text');
  });

  it('resolves rel=canonical against <base href>, and reports the base as written', () => {
    const p = parse(
      '<head><base href="/other/"><link rel="Canonical alternate" href="x.html?b=2&a=1#top"></head>',
    );
    expect(p.baseHref).toBe('/other/');
    expect(p.canonical).toBe('https://example.com/other/x.html?a=1&b=2');
    expect(parse('<link rel="canonical" href="javascript:void(0)">').canonical).toBeNull();
    expect(parse('<link rel="canonical" href="">').canonical).toBeNull();
  });

  it('combines meta robots (ours and generic) with X-Robots-Tag', () => {
    expect(parse('<meta name="ROBOTS" content="noindex">').robots).toEqual({
      noindex: true,
      nofollow: false,
      noarchive: false,
    });
    const ours = '<meta name="crawlerbot" content="nofollow"><meta name="otherbot" content="none">';
    expect(parse(ours, { productToken: 'CrawlerBot' }).robots).toEqual({
      noindex: false,
      nofollow: true,
      noarchive: false,
    });
    expect(parse(ours).robots.nofollow).toBe(false);
    const header = parse('<p>x</p>', {
      xRobotsTag: 'crawlerbot: none',
      productToken: 'crawlerbot',
    });
    expect(header.robots).toMatchObject({ noindex: true, nofollow: true });
  });

  it('takes the language from <html lang>, then content-language, then the text', () => {
    expect(parse('<html lang="de-AT"><p>the and of</p>')).toMatchObject({
      lang: 'de',
      langSource: 'html',
    });
    expect(parse('<meta http-equiv="Content-Language" content="fr"><p>x</p>')).toMatchObject({
      lang: 'fr',
      langSource: 'meta',
    });
    const es = parse(
      '<html lang=""><p>El rastreador descarga cada página una vez, y espera el tiempo que pide el servidor para no ser una carga.</p>',
    );
    expect(es).toMatchObject({ lang: 'es', langSource: 'text' });
    expect(parse('<p>Home</p>')).toMatchObject({ lang: null, langSource: null });
  });

  it('decodes by charset before parsing', () => {
    const body = Uint8Array.from('<title>Caf\u00e9 \u0080</title>', (c) => c.charCodeAt(0));
    const p = parse(body, { contentType: 'text/html; charset=windows-1252' });
    expect(p).toMatchObject({ title: 'Café €', charset: 'windows-1252', charsetSource: 'header' });
  });

  it('caps links and text, and says so', () => {
    const many = parse('<a href="/x">x</a>'.repeat(MAX_LINKS + 10));
    expect(many.links).toHaveLength(MAX_LINKS);
    expect(many.linksTruncated).toBe(true);
    const long = parse(`<p>${'word '.repeat(300_000)}</p>`);
    expect(long.textTruncated).toBe(true);
    expect(long.text.length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
    expect(long.text.length).toBeGreaterThan(MAX_TEXT_CHARS - 10);
  });

  it('never throws on malformed markup or binary garbage', () => {
    const malformed = [
      '',
      '<',
      '<<<>>>',
      '<a href="x',
      '<div><p><table><tr><td>x</div></span></td><a href=/y>y',
      '<!-- unterminated',
      '<script>never closed',
      '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body>x</body></html>',
      '\u0000\u0001<p\u0000>nul</p>',
    ];
    for (const html of malformed) expect(parse(html).parseError).toBeNull();
    let seed = 1;
    const garbage = Uint8Array.from({ length: 200_000 }, () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 24;
    });
    const p = parse(garbage, { contentType: 'application/octet-stream; charset=utf-8' });
    expect(p.parseError).toBeNull();
    expect(p.contentSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(parse('<a href=/y>y</a>', { xRobotsTag: [] }).links).toHaveLength(1);
  });

  it('parses 10 MB pages, including pathological nesting, in bounded time', () => {
    const big = parse(samplePage(3, 10 * 1024 * 1024));
    expect(big).toMatchObject({ textTruncated: true, linksTruncated: true, parseError: null });
    const deep = parse(`${'<div>'.repeat(2_000_000)}deep`);
    expect(deep).toMatchObject({ htmlTruncated: true, parseError: null });
    expect(deep.droppedTags).toBeGreaterThan(0);
    const unclosedLinks = parse('<a href="/x">x'.repeat(100_000));
    expect(unclosedLinks.links).toHaveLength(MAX_LINKS);
  });

  it('returns plain data that survives structured clone and JSON', () => {
    const p = parse(samplePage(4));
    expect(structuredClone(p)).toEqual(p);
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });

  it('counts same-host hops in discoverLinks: +1 on the page host, 0 on another, none past maxHops', () => {
    const html = '<a href="/next">n</a><a href="http://other.test/x">o</a>';
    const limits = { maxUrlLength: 2048, maxPathSegments: 16, maxDepth: 10, maxHops: 3 };
    const at = (hops: number) => discoverLinks(URL_, toExtractedPage(parse(html)), 0, limits, hops);
    expect(at(1).urls.map((u) => [u.url.replace(/^https?:\/\/[^/]+/, ''), u.hops])).toEqual([
      ['/next', 2],
      ['/x', 0],
    ]);
    const deep = at(3);
    expect(deep.urls.map((u) => u.host)).toEqual(['other.test']);
    expect(deep.dropped.too_many_hops).toBe(1);
  });

  it('feeds discoverLinks, which honours an X-Robots-Tag nofollow', () => {
    const html = '<base href="https://cdn.example.org/"><a href="a">a</a><a href="/b#x">b</a>';
    const limits = { maxUrlLength: 2048, maxPathSegments: 16, maxDepth: 10, maxHops: 3 };
    const found = discoverLinks(URL_, toExtractedPage(parse(html)), 0, limits);
    expect(found.urls.map((u) => u.url)).toEqual([
      'https://cdn.example.org/a',
      'https://cdn.example.org/b',
    ]);
    const page = parse(html, { xRobotsTag: 'nofollow' });
    expect(discoverLinks(URL_, toExtractedPage(page), 0, limits).urls).toEqual([]);
  });
});
