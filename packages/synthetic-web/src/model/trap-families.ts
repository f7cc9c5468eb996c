/**
 * The trap families of a web built with `trapFamilies: true` (README "Trap families"): what each
 * host links and which of its pages are real. The trap pages themselves are rendered on request
 * (server/trap-routes.ts); only the pager's real pages and the catalog are resources here.
 * Everything is derived with {@link mix}, never the plan's generators, so the rest of the web is
 * the same with and without the families.
 */
import { mix } from '../prng.js';
import { DEAD_LINK_PREFIX, PAGER_PAGES } from '../trap-patterns.js';
import type { HostHeader } from './assign.js';
import type { LinkSpec, PageResource } from './resources.js';
import { treePath } from './tree.js';

/** What trap-families.ts needs of the plan builder. */
export interface TrapPlanTarget {
  readonly header: HostHeader;
  readonly homeExtras: LinkSpec[];
  /** Every tree page of the host (ids below 10,000), built already. */
  treePages(): PageResource[];
  /** Adds a small special page (linking home unless `links` is given). */
  page(path: string, extra?: Partial<PageResource>): PageResource;
  /** Links a path from the home page. */
  link(path: string): void;
}

/** URL forms of the calendars: `/events?month=YYYY-MM`, `/cal/YYYY-MM-DD/`, `/diary/YYYY/MM/DD.html`. */
export type CalendarForm = 'events' | 'cal' | 'diary';
const CALENDAR_FORMS: readonly CalendarForm[] = ['events', 'cal', 'diary'];

/** First and last year the calendars answer (outside: not found). */
export const CALENDAR_YEARS = [1990, 2049] as const;

/** The calendar form of a `trap-calendars` host. */
export function calendarFormOf(seed: number, host: number): CalendarForm {
  return CALENDAR_FORMS[mix(seed, 'calendar-form', host) % CALENDAR_FORMS.length] ?? 'events';
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Path key of a calendar page in the given form (`day` is ignored by the month form). */
export function calendarPath(form: CalendarForm, y: number, m: number, d: number): string {
  if (form === 'events') return `/events?month=${y}-${pad2(m)}`;
  if (form === 'cal') return `/cal/${y}-${pad2(m)}-${pad2(d)}/`;
  return `/diary/${y}/${pad2(m)}/${pad2(d)}.html`;
}

/** Pager URL forms: `/archive?page=N` or `/archive/page/N/`. */
export type PagerForm = 'query' | 'path';

/** The pager form of a `trap-pager` host. */
export function pagerFormOf(seed: number, host: number): PagerForm {
  return mix(seed, 'pager-form', host) % 2 === 0 ? 'query' : 'path';
}

/** Path key of pager page n. */
export function pagerPath(form: PagerForm, n: number): string {
  return form === 'query' ? `/archive?page=${n}` : `/archive/page/${n}/`;
}

/** Facet dimensions of `/catalog` and their values. */
export const FACETS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['color', ['red', 'blue', 'green']],
  ['size', ['s', 'm', 'l']],
  ['brand', ['acme', 'globex', 'initech']],
  ['sort', ['price', 'name', 'newest']],
];

/** Tree pages the catalog (and each of its filtered views) lists. */
export function catalogEntries(seed: number, h: HostHeader): string[] {
  if (h.pages <= 1) return ['/'];
  const ids = new Set<number>();
  for (let j = 0; j < 4; j++) ids.add(1 + (mix(seed, 'catalog', h.index, j) % (h.pages - 1)));
  return [...ids].map((k) => treePath(seed, h.index, k));
}

/** Session-id parameter name of a host (its "framework"). */
export function sessionNameOf(seed: number, host: number): string {
  const names = ['jsessionid', 'JSESSIONID', 'phpsessid', 'sid', 'sessionid'];
  return names[mix(seed, 'session-name', host) % names.length] ?? 'jsessionid';
}

/** The session id of render number `n` of a host: 32 upper-case hex digits. */
export function sessionId(seed: number, host: number, n: number): string {
  let out = '';
  for (let i = 0; i < 4; i++) out += mix(seed, 'session', host, n, i).toString(16).padStart(8, '0');
  return out.toUpperCase();
}

/** The two no-op pairs a `noop-params` host adds: one byte-identical, one that changes a word. */
export function noopPairsOf(seed: number, host: number): [string, string] {
  const exact = mix(seed, 'noop-exact', host) % 2 === 0 ? 'print=1' : 'ref=nav';
  const near = mix(seed, 'noop-near', host) % 2 === 0 ? 'sort=asc' : 'view=full';
  return [exact, near];
}

/** A dead link of a `soft-404` host, chosen by `parts`. */
export function deadLinkPath(seed: number, host: number, ...parts: Array<string | number>): string {
  return `${DEAD_LINK_PREFIX}${1000 + (mix(seed, 'dead', host, ...parts) % 9000)}.html`;
}

function rootLink(host: number, path: string): LinkSpec {
  return { host, path, variant: 'root', tracking: 0, fragment: false, unsorted: false };
}

/** Children of tree page k that treeLinks() put right after its parent link. */
function structuralLinks(k: number, branching: number, pages: number): number {
  const children = Math.max(0, Math.min(k * branching + branching, pages - 1) - k * branching);
  return (k > 0 ? 1 : 0) + children;
}

function addPager(b: TrapPlanTarget, seed: number): void {
  const h = b.header;
  const form = pagerFormOf(seed, h.index);
  for (let n = 1; n <= PAGER_PAGES; n++) {
    const links = [rootLink(h.index, '/')];
    if (n > 1) links.push(rootLink(h.index, pagerPath(form, n - 1)));
    links.push(rootLink(h.index, pagerPath(form, n + 1)));
    const entries = new Set<string>();
    for (let j = 0; j < 5; j++) entries.add(treePath(seed, h.index, ((n - 1) * 5 + j) % h.pages));
    for (const p of entries) links.push(rootLink(h.index, p));
    b.page(pagerPath(form, n), { title: `Archive page ${n}`, links });
  }
  b.link(pagerPath(form, 1));
}

function addCatalog(b: TrapPlanTarget, seed: number): void {
  const h = b.header;
  const [dim, values] = FACETS[0] as readonly [string, readonly string[]];
  const links = [rootLink(h.index, '/')];
  for (const p of catalogEntries(seed, h)) links.push(rootLink(h.index, p));
  for (const v of values) links.push(rootLink(h.index, `/catalog?${dim}=${v}`));
  b.page('/catalog', { title: 'Catalog', links });
  b.link('/catalog');
}

function addDeadLinks(b: TrapPlanTarget, seed: number): void {
  const me = b.header.index;
  b.homeExtras.push(rootLink(me, deadLinkPath(seed, me, 'home', 0)));
  b.homeExtras.push(rootLink(me, deadLinkPath(seed, me, 'home', 1)));
  for (const page of b.treePages()) {
    if (page.id > 0 && mix(seed, 'dead-on', me, page.id) % 4 === 0)
      page.links.push(rootLink(me, deadLinkPath(seed, me, 'tree', page.id)));
  }
}

function decorateLinks(b: TrapPlanTarget, seed: number, branching: number): void {
  const h = b.header;
  const noop = h.features.includes('noop-params') ? noopPairsOf(seed, h.index) : null;
  for (const page of b.treePages()) {
    const structural = structuralLinks(page.id, branching, h.pages);
    page.links.forEach((l, i) => {
      if (l.host !== h.index) return;
      if (h.sessionInPath) l.session = true;
      // Only the random extra links: every page stays reachable through plain tree links.
      if (noop !== null && i >= structural && mix(seed, 'noop', h.index, page.id, i) % 2 === 0)
        l.noop = noop[mix(seed, 'noop-which', h.index, page.id, i) % 2];
    });
  }
}

/**
 * Adds the trap families of a normal host: calendar, pager, catalog and dead links from the home
 * page, dead links on a quarter of the tree pages, session ids and no-op parameters on tree links.
 * @param branching the host's tree branching (to tell structural links from random ones).
 */
export function addTrapFamilies(b: TrapPlanTarget, seed: number, branching: number): void {
  const h = b.header;
  const has = (f: string): boolean => (h.features as string[]).includes(f);
  if (has('trap-calendars')) {
    const form = calendarFormOf(seed, h.index);
    const month = 1 + (mix(seed, 'calendar-month', h.index) % 12);
    b.link(calendarPath(form, 2024, month, 1 + (mix(seed, 'calendar-day', h.index) % 28)));
  }
  if (has('trap-pager')) addPager(b, seed);
  if (has('trap-facets')) addCatalog(b, seed);
  if (has('soft-404')) addDeadLinks(b, seed);
  decorateLinks(b, seed, branching);
}
