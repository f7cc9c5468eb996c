import { describe, expect, it } from 'vitest';
import {
  extractHtml,
  MAX_ELEMENTS,
  MAX_NESTING_DEPTH,
  type DocumentFacts,
  type ExtractLimits,
} from './extract-html';
import { MAX_LINKS, MAX_TEXT_CHARS, parsePage } from './parse-page';
import { samplePage } from './sample-pages';

const LIMITS: ExtractLimits = {
  maxTextChars: MAX_TEXT_CHARS,
  maxLinks: MAX_LINKS,
  maxFieldChars: 2000,
  productToken: 'crawlerbot',
};

function extract(html: string, limits: Partial<ExtractLimits> = {}): DocumentFacts {
  return extractHtml(html, { ...LIMITS, ...limits });
}

function page(html: string, productToken?: string) {
  return parsePage({
    url: 'https://example.com/dir/page.html',
    body: new TextEncoder().encode(html),
    contentType: 'text/html',
    xRobotsTag: null,
    ...(productToken === undefined ? {} : { productToken }),
  });
}

describe('extractHtml', () => {
  it('skips unclosed hidden elements up to their parent’s end or the end of the document', () => {
    expect(extract('<div><nav>menu <a href="/m">m</a></div><p>main</p>').text).toBe('main');
    expect(extract('<p>before</p><nav><p>menu').text).toBe('before');
    expect(extract('<p>before</p><script>var x = "<p>not text</p>";').text).toBe('before');
    expect(extract('<p>a</p><style>p{}</style><noscript>enable js</noscript><p>b</p>').text).toBe(
      'a b',
    );
    // An end tag closes the unclosed <nav> inside its element.
    expect(extract('<ul><li><nav>menu</li><li>item</ul>').text).toBe('item');
    // A <li> only closes an open <li> directly above it (as htmlparser2 does): here it nests.
    expect(extract('<ul><li><nav>menu<li>item</ul>after').text).toBe('after');
  });

  it('skips nested hidden subtrees and shows what follows them', () => {
    const html =
      '<header><nav><aside>x</aside>y</nav>z</header>' +
      '<main><p>one <svg><title>icon</title><text>svg text</text></svg>two</p>' +
      '<footer>f<template>t</template></footer><p>three</p></main>';
    expect(extract(html).text).toBe('one two three');
  });

  it('breaks words at block elements, not at inline ones', () => {
    expect(extract('<div>a</div><div>b<b>c</b><span>d</span></div>e<br>f<hr>g').text).toBe(
      'a bcd e f g',
    );
    expect(extract('<p>x</p>\n\t  <p>  y  </p>').text).toBe('x y');
  });

  it('decodes entities in text, hrefs and attributes', () => {
    const facts = extract(
      '<title>A &amp; B</title><meta name="description" content="caf&eacute; &lt;3">' +
        '<a href="/s?a=1&amp;b=2&#x26;c=&quot;3&quot;">x</a>' +
        '<p>Caf&eacute;&nbsp;&amp; &lt;tag&gt; &#128512; &unknown; &amp</p>',
    );
    expect(facts.title).toBe('A & B');
    expect(facts.description).toBe('café <3');
    expect(facts.links).toEqual([{ href: '/s?a=1&b=2&c="3"', nofollow: false }]);
    expect(facts.text).toBe('x Café & <tag> \u{1f600} &unknown; &');
  });

  it('reads tag and attribute names in any case', () => {
    const facts = extract(
      '<HTML LANG="de"><HEAD><TITLE>T</TITLE><META NAME="Description" CONTENT="D">' +
        '<LINK REL="CANONICAL" HREF="/c"><BASE HREF="/b/"></HEAD>' +
        '<BODY><NAV>menu</NAV><P>Text <A HREF="/x" REL="NOFOLLOW">x</A></P><SCRIPT>s()</SCRIPT></BODY></HTML>',
    );
    expect(facts).toMatchObject({
      title: 'T',
      description: 'D',
      htmlLang: 'de',
      canonicalHref: '/c',
      baseHref: '/b/',
      text: 'Text x',
      links: [{ href: '/x', nofollow: true }],
    });
  });

  it('keeps the first <base href> only, trimmed', () => {
    const facts = extract('<base target="_top"><base href=" /one/ "><base href="/two/">');
    expect(facts.baseHref).toBe('/one/');
    expect(extract('<p>x</p>').baseHref).toBeNull();
  });

  it('collects a[href] and area[href] in document order, with their own nofollow', () => {
    const facts = extract(
      '<a name="anchor">no href</a><a href=" /a ">a</a>' +
        '<map><area href="/area" rel="nofollow" shape="rect"><area alt="none"></map>' +
        '<nav><a href="/nav" rel="noopener NoFollow">n</a></nav><a href>empty</a>',
    );
    expect(facts.links).toEqual([
      { href: '/a', nofollow: false },
      { href: '/area', nofollow: true },
      { href: '/nav', nofollow: true },
      { href: '', nofollow: false },
    ]);
    expect(facts.linksTruncated).toBe(false);
  });

  it('keeps at most maxLinks links and says so', () => {
    const facts = extract('<a href="/x">x</a><area href="/y">'.repeat(MAX_LINKS));
    expect(facts.links).toHaveLength(MAX_LINKS);
    expect(facts.links[MAX_LINKS - 1]).toEqual({ href: '/y', nofollow: false });
    expect(facts.linksTruncated).toBe(true);
    const exact = extract('<a href="/x">x</a>'.repeat(3), { maxLinks: 3 });
    expect(exact).toMatchObject({ linksTruncated: false });
    expect(exact.links).toHaveLength(3);
  });

  it('keeps at most maxTextChars of text, cut at a word or surrogate boundary, and says so', () => {
    const long = extract(`<p>${'word '.repeat(300_000)}</p>`);
    expect(long.textTruncated).toBe(true);
    expect(long.text.length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
    expect(long.text.length).toBeGreaterThan(MAX_TEXT_CHARS - 10);
    expect(long.text).not.toMatch(/\s$/);
    expect(extract('abcdefghij', { maxTextChars: 10 })).toMatchObject({
      text: 'abcdefghij',
      textTruncated: false,
    });
    expect(extract('<p>ab\u{1f600}</p>', { maxTextChars: 3 })).toMatchObject({
      text: 'ab',
      textTruncated: true,
    });
    // Whitespace collapses before it counts.
    const spaced = extract(`a${' \n\t'.repeat(100)}b`, { maxTextChars: 3 });
    expect(spaced).toMatchObject({ text: 'a b', textTruncated: false });
  });

  it('caps the title and description', () => {
    const facts = extract(
      `<title>${'t  '.repeat(5000)}</title><meta name="description" content="${'d '.repeat(5000)}">`,
      { maxFieldChars: 9 },
    );
    expect(facts.title).toBe('t t t t t');
    expect(facts.description).toBe('d d d d d');
    expect(extract(`<title>${'x\n'.repeat(2_000_000)}`, { maxFieldChars: 5 }).title).toBe('x x x');
  });

  it('takes the first <title> outside SVG, including an unclosed one', () => {
    expect(extract('<svg><title>icon</title></svg><title>Real</title>').title).toBe('Real');
    expect(extract('<title>Never closed <p>x</p>').title).toBe('Never closed <p>x</p>');
  });

  it('reads meta robots for robots and our product token only', () => {
    const html =
      '<meta name="robots" content="noarchive"><meta name=" CrawlerBot " content="noindex">' +
      '<meta name="otherbot" content="nofollow">';
    expect(extract(html).metaRobots).toEqual(['noarchive', 'noindex']);
    expect(extract(html, { productToken: null }).metaRobots).toEqual(['noarchive']);
    expect(page(html, 'crawlerbot').robots).toEqual({
      noindex: true,
      nofollow: false,
      noarchive: true,
    });
    expect(page(html).robots).toEqual({ noindex: false, nofollow: false, noarchive: true });
    expect(page(html, 'otherbot').robots).toMatchObject({ noindex: false, nofollow: true });
  });

  it('resolves the canonical against the first <base href>', () => {
    const p = page(
      '<base href="https://cdn.example.org/x/"><base href="/ignored/">' +
        '<link rel="canonical" href="../c?b=1&amp;a=2"><link rel="canonical" href="/second">',
    );
    expect(p.baseHref).toBe('https://cdn.example.org/x/');
    expect(p.canonical).toBe('https://cdn.example.org/c?a=2&b=1');
    expect(page('<link rel="canonical" href="other.html">').canonical).toBe(
      'https://example.com/dir/other.html',
    );
  });

  it('follows htmlparser2’s tree rules for implied and unmatched end tags', () => {
    // `</p>` and `</br>` without an open element make one (a word break); `<x/>` only closes
    // itself inside SVG/MathML.
    expect(extract('a</p>b</br>c</span>d').text).toBe('a b cd');
    expect(extract('<aside/>hidden<p>still hidden').text).toBe('');
    expect(extract('<svg><nav/></svg>shown').text).toBe('shown');
    // A block start tag closes an open <p>; an end tag closes everything above its element.
    expect(extract('<p>a<div>b</div>c').text).toBe('a b c');
    expect(extract('<nav><b><i>x</nav>y').text).toBe('y');
  });

  it('caps the nesting depth, leaving out deeper tags and their end tags, keeping the text', () => {
    const html = `${'<div>'.repeat(5000)}deep text${'</div>'.repeat(5000)}<p>after</p>`;
    const facts = extract(html);
    expect(facts.droppedTags).toBe(2 * (5000 - MAX_NESTING_DEPTH));
    expect(facts.deepest).toBeLessThanOrEqual(MAX_NESTING_DEPTH);
    expect(facts.elements).toBe(MAX_NESTING_DEPTH + 1); // 256 divs and the p
    expect(facts.text).toBe('deep text after');
    // The end tags of the dropped elements went with them: they do not close the <nav>.
    const nav = '<div><div><div><div><nav><div><div>x</div></div>y</nav>z';
    expect(extract(nav, { maxDepth: 5 })).toMatchObject({ droppedTags: 4, text: 'z' });
  });

  it('keeps every link of unclosed nested <a>s by closing the open one at the cap', () => {
    const html = Array.from({ length: 1000 }, (_, i) => `<a href="/l${i}">l${i}`).join('');
    const facts = extract(html, { maxDepth: 50 });
    expect(facts.droppedTags).toBe(0);
    expect(facts.links).toHaveLength(1000);
    expect(facts.links[999]).toEqual({ href: '/l999', nofollow: false });
    expect(facts.deepest).toBeLessThanOrEqual(51);
  });

  it('follows htmlparser2 at the cap: implied closes, void elements, raw text, comments', () => {
    const html =
      '<ul>' +
      '<li>x<br><img src=a>'.repeat(2000) +
      '</ul><script>' +
      '<div>'.repeat(2000) +
      '</script><!--' +
      '<div>'.repeat(2000) +
      '--><p>' +
      '<p>'.repeat(2000);
    expect(extract(html, { maxDepth: 10 })).toMatchObject({ droppedTags: 0, htmlTruncated: false });
    const svg = `<svg>${'<g/>'.repeat(2000)}</svg>${'<div/>'.repeat(20)}`;
    expect(extract(svg, { maxDepth: 10 }).droppedTags).toBe(10);
  });

  it('does not end a tag at a > inside a quoted attribute value', () => {
    const html = `<div title="a > b">${'<span>'.repeat(20)}x`;
    expect(extract(html, { maxDepth: 5 })).toMatchObject({ droppedTags: 16, text: 'x' });
    expect(extract('<a title="a > b" href="/in">in</a>').links).toEqual([
      { href: '/in', nofollow: false },
    ]);
  });

  it('stops before the start tag past maxElements', () => {
    expect(extract('<p>one</p><p>two</p><p>three</p>', { maxElements: 2 })).toMatchObject({
      text: 'one two',
      droppedTags: 0,
      htmlTruncated: true,
    });
    expect(extract('<p>one</p><p>two</p>', { maxElements: 2 }).htmlTruncated).toBe(false);
  });

  it('reads an ordinary page without dropping or truncating anything', () => {
    const facts = extract(samplePage(1));
    expect(facts).toMatchObject({ droppedTags: 0, htmlTruncated: false, textTruncated: false });
    expect(facts.deepest).toBeLessThan(20);
  });

  it('reads 10 MB of pathological nesting in linear time', () => {
    const html = '<div>'.repeat(2_000_000);
    const t0 = performance.now();
    const facts = extract(html);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(facts.htmlTruncated).toBe(true);
    expect(facts.droppedTags).toBe(MAX_ELEMENTS - MAX_NESTING_DEPTH);
    const stray = '<div>'.repeat(MAX_NESTING_DEPTH) + '</x>'.repeat(2_000_000);
    const t1 = performance.now();
    expect(extract(stray).droppedTags).toBe(0);
    expect(performance.now() - t1).toBeLessThan(5000);
  });
});
