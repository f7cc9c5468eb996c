/**
 * Routes of the trap families (README "Trap families"): calendars, the pager past its last page
 * and faceted views, answered on the hosts whose feature calls for them; the soft-404 fallback;
 * and the no-op parameters of tree pages.
 */
import type { HostPlan, PageResource } from '../model/resources.js';
import { mix } from '../prng.js';
import {
  CALENDAR_YEARS,
  calendarFormOf,
  deadLinkPath,
  FACETS,
  pagerFormOf,
  pagerPath,
} from '../model/trap-families.js';
import {
  renderCalendarPage,
  renderFacetView,
  renderPagerEnd,
  renderSoft404,
} from '../render/trap-pages.js';
import { hasNoopParam, PAGER_PAGES, pagerPageOf, withoutNoopParams } from '../trap-patterns.js';
import type { Reply } from './reply.js';

const HTML = 'text/html; charset=utf-8';
/** Highest pager page answered (far beyond any crawl). */
const MAX_PAGER_PAGE = 1_000_000;

const CALENDAR_ROUTES = {
  events: /^\/events\?month=(\d{4})-(\d{2})$/,
  cal: /^\/cal\/(\d{4})-(\d{2})-(\d{2})\/$/,
  diary: /^\/diary\/(\d{4})\/(\d{2})\/(\d{2})\.html$/,
} as const;

/** [year, month, day] of a calendar path in the host's form, or null. */
function calendarDate(
  form: keyof typeof CALENDAR_ROUTES,
  path: string,
): [number, number, number] | null {
  const m = CALENDAR_ROUTES[form].exec(path);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = m[3] === undefined ? 1 : Number(m[3]);
  if (y < CALENDAR_YEARS[0] || y > CALENDAR_YEARS[1] || mo < 1 || mo > 12 || d < 1) return null;
  if (new Date(Date.UTC(y, mo - 1, d)).getUTCMonth() !== mo - 1) return null;
  return [y, mo, d];
}

/** The (dimension, value) filters of a faceted view, or null when the query is not one. */
function facetFilters(path: string): Array<[string, string]> | null {
  if (!path.startsWith('/catalog?')) return null;
  const filters: Array<[string, string]> = [];
  for (const pair of path.slice('/catalog?'.length).split('&')) {
    const [k = '', v = ''] = pair.split('=');
    const facet = FACETS.find(([dim]) => dim === k);
    if (!facet || !facet[1].includes(v) || filters.some(([dim]) => dim === k)) return null;
    filters.push([k, v]);
  }
  return filters;
}

/**
 * Serves a calendar, pager or facet trap page when the host has that family and the path is one
 * of its pages; returns false otherwise.
 * @param path canonical path key, session path parameters removed.
 */
export function serveTrapFamily(seed: number, plan: HostPlan, path: string, reply: Reply): boolean {
  const h = plan.header;
  const f = h.features as string[];
  let html: string | null = null;
  if (f.includes('trap-calendars')) {
    const form = calendarFormOf(seed, h.index);
    const date = calendarDate(form, path);
    if (date !== null) html = renderCalendarPage(seed, h, form, ...date);
  }
  if (html === null && f.includes('trap-pager')) {
    const form = pagerFormOf(seed, h.index);
    const n = pagerPageOf(path);
    if (n !== null && n > PAGER_PAGES && n <= MAX_PAGER_PAGE && path === pagerPath(form, n))
      html = renderPagerEnd(seed, h, pagerPath(form, n - 1), pagerPath(form, n + 1));
  }
  if (html === null && f.includes('trap-facets')) {
    const filters = facetFilters(path);
    if (filters !== null) html = renderFacetView(seed, h, filters);
  }
  if (html === null) return false;
  reply.send(200, { 'Content-Type': HTML }, html);
  return true;
}

/** The soft-404 answer of a `soft-404` host for a path it does not have (200, never 404). */
export function serveSoft404(seed: number, plan: HostPlan, path: string, reply: Reply): void {
  const h = plan.header;
  const dead: string[] = [];
  for (let i = 0; i <= mix(seed, 'dead-count', h.index, path) % 2; i++)
    dead.push(deadLinkPath(seed, h.index, 'next', path, i));
  reply.send(200, { 'Content-Type': HTML }, renderSoft404(seed, h, path, dead));
}

/**
 * The tree page a URL with no-op parameters shows on a `noop-params` host, or null.
 * @param path canonical path key.
 */
export function noopTarget(plan: HostPlan, path: string): PageResource | null {
  if (!(plan.header.features as string[]).includes('noop-params') || !hasNoopParam(path))
    return null;
  const r = plan.resources.get(withoutNoopParams(path));
  return r?.type === 'page' ? r : null;
}
