/**
 * HTML rendering of pages (tree pages, specials, duplicates) and of the trap pages.
 */
import { lastModifiedMs, revisionOf } from '../model/changes.js';
import { dirOf } from '../model/plan.js';
import { htmlTargetBytes, originOf } from '../model/realistic.js';
import type { HostPlan, LinkSpec, PageResource } from '../model/resources.js';
import { mix, Rng } from '../prng.js';
import { escapeHtml, renderHref } from './href.js';
import { FillerBody, fillerCorpus } from './filler.js';
import { paragraph, sentence } from './text.js';

/** What rendering depends on besides the plan. */
export interface RenderContext {
  seed: number;
  /** TCP port of the web (absolute links carry it). */
  port: number;
  /** Current cycle. */
  cycle: number;
  /** The session path parameter of this render (`;jsessionid=…`) for links marked `session`. */
  session?: string;
  /** Whether host i serves HTTPS (absolute links then say `https://`); absent = none does. */
  httpsOf?: (host: number) => boolean;
}

/** A rendered page with its validators. */
export interface RenderedPage {
  body: Buffer;
  /** The same bytes gzipped, when rendered from the filler corpus (realistic web), else null. */
  gzip: Buffer | null;
  /** An ETag made from what the page is (host, page, revision, near), on the realistic web. */
  etag: string | null;
  revision: number;
  /** Last-Modified, ms since epoch. */
  lastModifiedMs: number;
}

function baseTag(plan: HostPlan, page: PageResource, port: number): string {
  if (page.base === null) return '';
  const href = page.baseAbsolute ? `${originOf(plan.header, port)}${page.base}` : page.base;
  return `<base href="${escapeHtml(href)}">\n`;
}

function anchorHtml(href: string, text: string, single: boolean): string {
  const h = escapeHtml(href);
  return single ? `<a href='${h}'>${text}</a>` : `<a href="${h}">${text}</a>`;
}

/**
 * Renders a page as it is in `ctx.cycle`.
 * @param near render the near-duplicate (first word of the first paragraph replaced).
 */
export function renderPage(
  plan: HostPlan,
  page: PageResource,
  ctx: RenderContext,
  near = false,
): RenderedPage {
  const h = plan.header;
  const revision = revisionOf(ctx.seed, h, page.id, ctx.cycle);
  const rng = new Rng(mix(ctx.seed, 'text', h.index, page.id, revision));
  const simpleBytes = rng.int(2000, 20000);
  const targetBytes =
    h.realism === undefined ? simpleBytes : htmlTargetBytes(ctx.seed, h.index, page.id);
  const fromDir = page.base ?? dirOf(page.path);
  const anchors = page.links.map((l: LinkSpec, i) => {
    const words = sentence(rng).split(' ').slice(0, rng.int(2, 4)).join(' ').replace(/\.$/, '');
    const href = renderHref(l, h.index, fromDir, ctx.port, ctx.session, ctx.httpsOf);
    return anchorHtml(href, escapeHtml(words), i % 10 === 7);
  });
  const title = escapeHtml(page.title);
  const head =
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n` +
    `${baseTag(plan, page, ctx.port)}</head>\n<body>\n<a id="top"></a>\n<h1>${title}</h1>\n` +
    (revision > 1 ? `<p class="rev">Revised in cycle ${revision}.</p>\n` : '');
  const nav = anchors
    .slice(0, 8)
    .map((a) => `<li>${a}</li>`)
    .join('');
  const rest = anchors.slice(8);
  const top = page.base === null ? '<a href="#top">Back to top</a> | ' : '';
  const footer =
    `<footer>${top}<a href="mailto:webmaster@${h.host}">Contact</a> | ` +
    `<a href="javascript:void(0)">Print</a></footer>\n</body>\n</html>\n`;
  const rendered = { revision, lastModifiedMs: lastModifiedMs(ctx.seed, h, page.id, revision) };
  if (h.realism !== undefined) {
    // The unique parts (head, links) around corpus blocks up to the page's size.
    const corpus = fillerCorpus(ctx.seed);
    const out = new FillerBody(corpus);
    out.text(head);
    out.text(`<ul class="nav">${nav}</ul>\n`);
    for (let i = 0; i === 0 || i * 3 < rest.length; i++) {
      let p = rng.pick(corpus.paragraphs);
      if (near && i === 0) p = `Quixotic${p.slice(p.indexOf(' '))}`;
      const inline = rest
        .slice(i * 3, i * 3 + 3)
        .map((a) => ` See ${a}.`)
        .join('');
      out.text(`<p>${p}${inline}</p>\n`);
    }
    while (out.size + footer.length < targetBytes) out.block(rng.int(0, corpus.blocks.length - 1));
    out.text(footer);
    const { body, gzip } = out.finish();
    const etag = `"${mix(ctx.seed, 'etag', h.index, page.id, revision, near ? 1 : 0).toString(16)}"`;
    return { ...rendered, body, gzip, etag };
  }
  const parts: string[] = [head, `<ul class="nav">${nav}</ul>\n`];
  let size = head.length + nav.length;
  let i = 0;
  while (size < targetBytes || i * 3 < rest.length || i === 0) {
    let p = paragraph(rng);
    if (near && i === 0) p = `Quixotic${p.slice(p.indexOf(' '))}`;
    const inline = rest
      .slice(i * 3, i * 3 + 3)
      .map((a) => ` See ${a}.`)
      .join('');
    const html = `<p>${p}${inline}</p>\n`;
    parts.push(html);
    size += html.length;
    i++;
  }
  parts.push(footer);
  return { ...rendered, body: Buffer.from(parts.join('')), gzip: null, etag: null };
}

function trapPage(title: string, links: string[]): string {
  const items = links
    .map((href) => `<li><a href="${escapeHtml(href)}">${escapeHtml(href)}</a></li>`)
    .join('\n');
  return (
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${escapeHtml(title)}</title>\n</head>\n` +
    `<body>\n<h1>${escapeHtml(title)}</h1>\n<ul>\n${items}\n</ul>\n</body>\n</html>\n`
  );
}

/** The endless calendar: `/calendar/YYYY/MM` links the previous and next month. */
export function renderCalendar(year: number, month: number): string {
  const prev = month === 1 ? [year - 1, 12] : [year, month - 1];
  const next = month === 12 ? [year + 1, 1] : [year, month + 1];
  const fmt = ([y, m]: number[]): string => `/calendar/${String(y)}/${String(m).padStart(2, '0')}`;
  return trapPage(`Events ${year}-${String(month).padStart(2, '0')}`, ['/', fmt(prev), fmt(next)]);
}

/** The repeated-segment loop: every `/loop/a/.../` page links the relative `a/`. */
export function renderLoop(depth: number): string {
  return trapPage(`Loop level ${depth}`, ['/', 'a/']);
}

/** The session-id shop: every render links items with a fresh `sid`. */
export function renderShop(sids: string[]): string {
  return trapPage('Shop', ['/'].concat(sids.map((sid, i) => `/shop/item-${i + 1}?sid=${sid}`)));
}

/** A short error page (no links). */
export function renderError(status: number, text: string): string {
  return `<!DOCTYPE html>\n<html><head><title>${status} ${escapeHtml(text)}</title></head><body><h1>${status} ${escapeHtml(text)}</h1></body></html>\n`;
}
