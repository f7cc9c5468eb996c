/**
 * HTML of the trap families' generated pages: calendars, the pager past its last page, faceted
 * views and soft-404 answers. Pages of one family on one host share their boilerplate (a few
 * paragraphs fixed per host and family) and differ in a few words only, as generated pages on
 * real sites do: near-identical by SimHash, which is how a crawler can recognise them.
 */
import type { HostHeader } from '../model/assign.js';
import { calendarPath, catalogEntries, FACETS, type CalendarForm } from '../model/trap-families.js';
import { mix, Rng } from '../prng.js';
import { escapeHtml } from './href.js';
import { paragraph } from './text.js';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Paragraphs fixed per host and family. */
function boilerplate(seed: number, h: HostHeader, family: string, paragraphs: number): string {
  const rng = new Rng(mix(seed, 'boilerplate', h.index, family));
  let out = '';
  for (let i = 0; i < paragraphs; i++) out += `<p>${paragraph(rng)}</p>\n`;
  return out;
}

function document(title: string, body: string): string {
  const t = escapeHtml(title);
  return (
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${t}</title>\n</head>\n` +
    `<body>\n<h1>${t}</h1>\n${body}</body>\n</html>\n`
  );
}

function nav(links: Array<[string, string]>): string {
  const items = links.map(([href, text]) => `<li><a href="${escapeHtml(href)}">${text}</a></li>`);
  return `<ul class="nav">${items.join('')}</ul>\n`;
}

/** The date one step (a month for the `events` form, else a day) before or after. */
export function calendarStep(
  form: CalendarForm,
  y: number,
  m: number,
  d: number,
  step: -1 | 1,
): [number, number, number] {
  const date = new Date(Date.UTC(y, m - 1, form === 'events' ? 1 : d));
  if (form === 'events') date.setUTCMonth(date.getUTCMonth() + step);
  else date.setUTCDate(date.getUTCDate() + step);
  return [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
}

/** A calendar page: no events, links to the previous and next month (or day) and home. */
export function renderCalendarPage(
  seed: number,
  h: HostHeader,
  form: CalendarForm,
  y: number,
  m: number,
  d: number,
): string {
  const when = form === 'events' ? `${MONTHS[m - 1]} ${y}` : `${d} ${MONTHS[m - 1]} ${y}`;
  const prev = calendarStep(form, y, m, d, -1);
  const next = calendarStep(form, y, m, d, 1);
  const unit = form === 'events' ? 'month' : 'day';
  return document(
    `Events: ${when}`,
    nav([
      [calendarPath(form, ...prev), `Previous ${unit}`],
      [calendarPath(form, ...next), `Next ${unit}`],
      ['/', 'Home'],
    ]) +
      `<p>No events are scheduled for this ${unit}.</p>\n` +
      boilerplate(seed, h, 'calendar', 10),
  );
}

/** A pager page past the last one: "no more entries", and a link to the next page anyway. */
export function renderPagerEnd(seed: number, h: HostHeader, prev: string, next: string): string {
  return document(
    'Archive',
    nav([
      [prev, 'Newer entries'],
      [next, 'Older entries'],
      ['/', 'Home'],
    ]) +
      '<p>No more entries.</p>\n' +
      boilerplate(seed, h, 'pager', 4),
  );
}

/** The href of a faceted view: its pairs in an order and a form chosen by `salt`. */
function facetHref(pairs: string[], salt: number): string {
  if (pairs.length === 0) return '/catalog';
  const turn = salt % pairs.length;
  const ordered = [...pairs.slice(turn), ...pairs.slice(0, turn)];
  if ((salt >>> 8) % 2 === 0) ordered.reverse();
  const query = ordered.join('&');
  return (salt >>> 9) % 3 === 0 ? `?${query}` : `/catalog?${query}`;
}

/**
 * A faceted view of the catalog: the same entries as `/catalog`, and one link per facet value
 * that toggles it (adds the filter, switches the dimension to that value, or removes it), their
 * parameters written in varying orders. Every view has the same links' text.
 * @param filters the view's (dimension, value) pairs.
 */
export function renderFacetView(
  seed: number,
  h: HostHeader,
  filters: Array<[string, string]>,
): string {
  const pairs = filters.map(([k, v]) => `${k}=${v}`);
  const links: Array<[string, string]> = [
    ['/', 'Home'],
    ['/catalog', 'All products'],
  ];
  catalogEntries(seed, h).forEach((p, i) => links.push([p, `Product ${i + 1}`]));
  for (const [dim, values] of FACETS) {
    const others = filters.filter(([k]) => k !== dim).map(([k, v]) => `${k}=${v}`);
    for (const v of values) {
      const on = filters.some(([k, x]) => k === dim && x === v);
      const salt = mix(seed, 'facet-href', h.index, pairs.join('&'), dim, v);
      links.push([facetHref(on ? others : [...others, `${dim}=${v}`], salt), v]);
    }
  }
  const shown = filters.map(([k, v]) => `${k} ${v}`).join(', ');
  return document(
    'Catalog',
    `<p>Products filtered by ${escapeHtml(shown)}.</p>\n` +
      nav(links) +
      boilerplate(seed, h, 'catalog', 18),
  );
}

/**
 * The answer of a `soft-404` host for a path it does not have: 200, "page not found" (echoing the
 * path) and 1–2 links to further dead paths.
 * @param dead the dead paths to link.
 */
export function renderSoft404(seed: number, h: HostHeader, path: string, dead: string[]): string {
  const links: Array<[string, string]> = [['/', 'Home']];
  for (const p of dead) links.push([p, 'You may also like']);
  return document(
    'Page not found',
    `<p>Sorry, the page ${escapeHtml(path)} could not be found.</p>\n` +
      nav(links) +
      boilerplate(seed, h, 'not-found', 14),
  );
}
