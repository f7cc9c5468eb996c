import { load } from 'cheerio/slim';
import { describe, expect, it } from 'vitest';
import { boundMarkup, MAX_NESTING_DEPTH } from './bound-markup';
import { samplePage } from './sample-pages';
import type { DomNode } from './walk-document';

/** Deepest element nesting htmlparser2 builds for `html`. */
function parsedDepth(html: string): number {
  const root: DomNode | undefined = load(html, { xml: { xmlMode: false } }).root()[0];
  let max = 0;
  const stack: Array<[DomNode, number]> = root ? [[root, 0]] : [];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    max = Math.max(max, depth);
    for (const child of node.children ?? []) if (child.name) stack.push([child, depth + 1]);
  }
  return max;
}

describe('boundMarkup', () => {
  it('returns an ordinary page unchanged (the same string)', () => {
    const html = samplePage(1);
    const out = boundMarkup(html);
    expect(out.html).toBe(html);
    expect(out).toMatchObject({ droppedTags: 0, truncated: false });
  });

  it('caps the depth htmlparser2 builds, keeping the text', () => {
    const html = `${'<div>'.repeat(5000)}deep text${'</div>'.repeat(5000)}<p>after</p>`;
    const out = boundMarkup(html);
    expect(out.droppedTags).toBe(2 * (5000 - MAX_NESTING_DEPTH));
    expect(parsedDepth(out.html)).toBeLessThanOrEqual(MAX_NESTING_DEPTH);
    const $ = load(out.html, { xml: { xmlMode: false } });
    expect($('div').length).toBe(MAX_NESTING_DEPTH);
    expect($.root().text()).toContain('deep text');
    // The end tags of the dropped elements went with them: `<p>` is not inside any div.
    expect($('p').parents('div').length).toBe(0);
  });

  it('keeps every link of unclosed nested <a>s by closing the open one at the cap', () => {
    const html = Array.from({ length: 1000 }, (_, i) => `<a href="/l${i}">l${i}`).join('');
    const out = boundMarkup(html, { maxDepth: 50 });
    expect(out.droppedTags).toBe(0);
    const $ = load(out.html, { xml: { xmlMode: false } });
    expect($('a[href]').length).toBe(1000);
    expect(parsedDepth(out.html)).toBeLessThanOrEqual(51);
  });

  it('follows htmlparser2: implied closes, void elements, raw text, comments', () => {
    const html =
      '<ul>' +
      '<li>x<br><img src=a>'.repeat(2000) +
      '</ul><script>' +
      '<div>'.repeat(2000) +
      '</script><!--' +
      '<div>'.repeat(2000) +
      '--><p>' +
      '<p>'.repeat(2000);
    expect(boundMarkup(html, { maxDepth: 10 })).toMatchObject({ html, droppedTags: 0 });
    const svg = `<svg>${'<g/>'.repeat(2000)}</svg>${'<div/>'.repeat(20)}`;
    expect(boundMarkup(svg, { maxDepth: 10 }).droppedTags).toBe(10);
  });

  it('does not end a tag at a > inside a quoted attribute value', () => {
    const html = `<div title="a > b">${'<span>'.repeat(20)}x`;
    expect(boundMarkup(html, { maxDepth: 5 }).html).toBe(
      `<div title="a > b">${'<span>'.repeat(4)}${' '.repeat(16)}x`,
    );
  });

  it('cuts the document before the start tag past maxElements', () => {
    const html = `<p>one</p><p>two</p><p>three</p>`;
    expect(boundMarkup(html, { maxElements: 2 })).toEqual({
      html: '<p>one</p><p>two</p>',
      droppedTags: 0,
      truncated: true,
    });
  });

  it('scans 10 MB of pathological nesting in linear time', () => {
    const html = '<div>'.repeat(2_000_000);
    const t0 = performance.now();
    const out = boundMarkup(html);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(out.truncated).toBe(true);
    expect(out.droppedTags).toBe(500_000 - MAX_NESTING_DEPTH);
  });
});
