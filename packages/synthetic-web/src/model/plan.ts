/**
 * Builds the full resource plan of one host (tree pages plus the special resources its kind and
 * features call for). Plans are built lazily and cached by {@link PlanCache}.
 */
import { mix, Rng } from '../prng.js';
import { hasRobotsBody, type HostHeader, type HostileKind } from './assign.js';
import {
  ROBOTS_REDIRECT_PATH,
  type HostileMode,
  type HostPlan,
  type LinkSpec,
  type PageResource,
  type Resource,
} from './resources.js';
import {
  BINARY_LINK_ODDS,
  BINARY_SIZES,
  lognormal,
  schemeOf,
  type HostRealism,
} from './realistic.js';
import { addTrapFamilies } from './trap-families.js';
import { branchingFor, sameHostVariant, treeLinks, treePath } from './tree.js';

/** Directory part of a path key: `/a/b/c.html?x` -> `/a/b/`. */
export function dirOf(pathKey: string): string {
  const q = pathKey.indexOf('?');
  const path = q < 0 ? pathKey : pathKey.slice(0, q);
  return path.slice(0, path.lastIndexOf('/') + 1);
}

function rootLink(host: number, path: string): LinkSpec {
  return { host, path, variant: 'root', tracking: 0, fragment: false, unsorted: false };
}

function titleFor(seed: number, host: number, id: number): string {
  const words = [
    'Notes',
    'Report',
    'Field',
    'Guide',
    'Update',
    'Archive',
    'Index',
    'Review',
    'Digest',
    'Letter',
  ];
  const a = words[mix(seed, 'title-a', host, id) % words.length] as string;
  const b = words[mix(seed, 'title-b', host, id) % words.length] as string;
  return `${a} ${b} ${id}`;
}

class PlanBuilder {
  readonly resources = new Map<string, Resource>();
  readonly homeExtras: LinkSpec[] = [];
  private nextSpecial = 10_000;

  constructor(
    private readonly seed: number,
    readonly header: HostHeader,
  ) {}

  add(r: Resource): void {
    this.resources.set(r.path, r);
  }

  /** A small special page linking home; returns it. */
  page(path: string, extra: Partial<PageResource> = {}): PageResource {
    const id = this.nextSpecial++;
    const p: PageResource = {
      type: 'page',
      id,
      path,
      title: titleFor(this.seed, this.header.index, id),
      links: [rootLink(this.header.index, '/')],
      base: null,
      baseAbsolute: false,
      busyOnce: false,
      ...extra,
    };
    this.add(p);
    return p;
  }

  /** Every tree page built so far (ids below 10,000). */
  treePages(): PageResource[] {
    const out: PageResource[] = [];
    for (const r of this.resources.values()) if (r.type === 'page' && r.id < 10_000) out.push(r);
    return out;
  }

  /** Links the path from the home page (root-relative). */
  link(path: string): void {
    this.homeExtras.push(rootLink(this.header.index, path));
  }

  /** A hostile resource (`mode`: how it misbehaves), linked from the home page. */
  hostile(path: string, mode: HostileMode): void {
    this.add({ type: 'hostile', path, mode });
    this.link(path);
  }

  redirect(
    path: string,
    status: 301 | 302 | 307 | 308,
    location: string,
    host: number,
    target: string,
  ): void {
    this.add({ type: 'redirect', path, status, location, target: { host, path: target } });
  }
}

function addTree(
  b: PlanBuilder,
  seed: number,
  all: readonly HostHeader[],
  branching: number,
): void {
  const h = b.header;
  for (let k = 0; k < h.pages; k++) {
    const path = treePath(seed, h.index, k);
    const withBase = h.features.includes('base-href') && k % 3 === 1;
    b.add({
      type: 'page',
      id: k,
      path,
      title: titleFor(seed, h.index, k),
      links: treeLinks(seed, h, k, branching, all),
      base: withBase ? `/${['news', 'blog', 'guides'][k % 3] ?? 'news'}/archive/` : null,
      baseAbsolute: k % 2 === 0,
      busyOnce: false,
    });
  }
}

function addRobotsProbes(b: PlanBuilder): void {
  const h = b.header;
  b.page('/private/secret-1.html');
  b.link('/private/secret-1.html');
  b.page('/private/open/page-1.html');
  b.link('/private/open/page-1.html');
  if (h.robots === 'longest-match') {
    b.page('/shared/doc.html');
    b.link('/shared/doc.html');
  }
  if (h.robots === 'wildcards') {
    b.add({ type: 'file', path: '/readme.txt', file: 'txt' });
    b.link('/readme.txt');
    b.add({ type: 'file', path: '/readme.txt?v=2', file: 'txt' });
    b.link('/readme.txt?v=2');
    b.page('/article.html?print=1');
    b.link('/article.html?print=1');
    b.page('/~joe/index.html');
    b.link('/~joe/index.html');
  }
  if (h.robots === 'redirect') b.add({ type: 'robots-target', path: ROBOTS_REDIRECT_PATH });
}

function addFeatures(b: PlanBuilder, seed: number, all: readonly HostHeader[]): void {
  const h = b.header;
  const me = h.index;
  const has = (f: string): boolean => (h.features as string[]).includes(f);
  const firstPage = h.pages > 1 ? treePath(seed, me, 1) : '/';
  if (has('dot-segments')) {
    b.page('/private/hidden.html');
    b.homeExtras.push({
      ...rootLink(me, '/private/hidden.html'),
      variant: 'raw',
      raw: '/docs/../private/hidden.html',
    });
  }
  if (has('trap-calendar')) b.link('/calendar/2024/01');
  if (has('trap-session')) b.link(`/shop?sid=${(mix(seed, 'sid', me) >>> 0).toString(16)}`);
  if (has('trap-loop')) b.link('/loop/a/');
  if (has('redirect-chain')) {
    b.redirect(
      '/old/start.html',
      301,
      `${schemeOf(h)}://{host}:{port}/old/middle.html`,
      me,
      '/old/middle.html',
    );
    b.redirect('/old/middle.html', 302, '../moved/final.html', me, '/moved/final.html');
    b.page('/moved/final.html');
    b.link('/old/start.html');
  }
  if (has('redirect-loop')) {
    b.redirect('/bounce/a', 302, '/bounce/b', me, '/bounce/b');
    b.redirect('/bounce/b', 302, '/bounce/a', me, '/bounce/a');
    b.link('/bounce/a');
  }
  if (has('redirect-long')) {
    for (let i = 1; i <= 8; i++) {
      const next = i === 8 ? '/hops/final.html' : `/hops/${i + 1}`;
      b.redirect(`/hops/${i}`, i % 2 === 0 ? 307 : 301, next, me, next);
    }
    b.page('/hops/final.html');
    b.link('/hops/1');
  }
  if (has('redirect-cross') && h.crossTarget !== null) {
    const t = all[h.crossTarget] as HostHeader;
    const target = treePath(seed, t.index, 1 + (mix(seed, 'cross', me) % Math.max(1, t.pages - 1)));
    b.redirect('/go/partner', 301, `${schemeOf(t)}://${t.host}:{port}${target}`, t.index, target);
    b.link('/go/partner');
  }
  if (has('statuses')) {
    b.add({ type: 'status', path: '/status/missing.html', status: 404 });
    b.add({ type: 'status', path: '/status/gone.html', status: 410 });
    b.add({ type: 'status', path: '/status/error.html', status: 500 });
    b.page('/status/busy.html', { busyOnce: true });
    for (const p of [
      '/status/missing.html',
      '/status/gone.html',
      '/status/error.html',
      '/status/busy.html',
    ])
      b.link(p);
  }
  if (has('duplicates')) {
    const dir = dirOf(firstPage);
    const copy = `${dir}copy-of-1.html`;
    const near = `${dir}near-of-1.html`;
    b.add({ type: 'copy', path: copy, of: firstPage, near: false });
    b.add({ type: 'copy', path: near, of: firstPage, near: true });
    b.link(copy);
    b.link(near);
  }
  if (has('non-html')) {
    const files = [
      ['/files/report.pdf', 'pdf'],
      ['/img/logo.png', 'png'],
      ['/data/info.json', 'json'],
      ['/notes/readme.txt', 'txt'],
    ] as const;
    for (const [path, file] of files) {
      b.add({ type: 'file', path, file });
      b.link(path);
    }
  }
  addSitemaps(b, seed);
}

/** Sitemap paths robots.txt lists for a host (from its features alone, without building the plan). */
export function robotsSitemapPaths(h: HostHeader): string[] {
  if (!hasRobotsBody(h.robots)) return [];
  const f = h.features as string[];
  const out: string[] = [];
  if (f.includes('sitemap-urlset')) out.push('/sitemap.xml');
  if (f.includes('sitemap-index')) out.push('/sitemap_index.xml');
  if (f.includes('sitemap-text')) out.push('/sitemap.txt');
  if (f.includes('sitemap-malformed')) out.push('/sitemap.xml');
  return out;
}

function addSitemaps(b: PlanBuilder, seed: number): void {
  const h = b.header;
  const has = (f: string): boolean => (h.features as string[]).includes(f);
  const pages: string[] = [];
  for (let k = 0; k < Math.min(h.pages, 60); k++) pages.push(treePath(seed, h.index, k));
  if (has('sitemap-urlset')) {
    b.add({ type: 'sitemap', path: '/sitemap.xml', format: 'urlset', entries: pages });
  }
  if (has('sitemap-index')) {
    const parts = ['/sitemaps/part-1.xml.gz', '/sitemaps/part-2.xml.gz', '/sitemaps/part-3.xml'];
    const formats = ['gzip', 'x-gzip', 'plain-part'] as const;
    parts.forEach((path, i) => {
      const entries = pages.filter((_, j) => j % 3 === i);
      b.add({ type: 'sitemap', path, format: formats[i] ?? 'plain-part', entries });
    });
    b.add({ type: 'sitemap', path: '/sitemap_index.xml', format: 'index', entries: parts });
  }
  if (has('sitemap-text')) {
    b.add({ type: 'sitemap', path: '/sitemap.txt', format: 'text', entries: pages });
  }
  if (has('sitemap-malformed')) {
    b.add({ type: 'sitemap', path: '/sitemap.xml', format: 'malformed', entries: ['/'] });
  }
}

/** The misbehaving resources of the hostile kinds that serve one: path and how it misbehaves. */
const HOSTILE_RESOURCES: Partial<Record<HostileKind, ReadonlyArray<[string, HostileMode]>>> = {
  'huge-page': [
    ['/huge.html', 'huge'],
    ['/huge-chunked.html', 'huge-chunked'],
  ],
  'gzip-bomb': [['/bomb.html', 'bomb']],
  trickle: [['/trickle.html', 'trickle']],
  'huge-headers': [['/big-headers.html', 'headers']],
  malformed: [['/broken.html', 'malformed']],
};

function addHostile(b: PlanBuilder): void {
  const kind = b.header.kind;
  const me = b.header.index;
  if (kind !== 'normal')
    for (const [path, mode] of HOSTILE_RESOURCES[kind] ?? []) b.hostile(path, mode);
  switch (kind) {
    case 'slow':
      b.page('/slow/page.html');
      b.link('/slow/page.html');
      break;
    case 'redirect-loop':
      b.redirect('/spin', 302, '/spin', me, '/spin');
      b.redirect('/spin-a', 302, '/spin-b', me, '/spin-b');
      b.redirect('/spin-b', 302, '/spin-a', me, '/spin-a');
      b.link('/spin');
      b.link('/spin-a');
      break;
    case 'normal':
      break;
  }
}

/**
 * Builds the plan of one host.
 * @param seed PRNG seed of the web.
 * @param header the host.
 * @param all every host (for cross-host links).
 */
export function buildPlan(seed: number, header: HostHeader, all: readonly HostHeader[]): HostPlan {
  const b = new PlanBuilder(seed, header);
  const branching = branchingFor(header.pages);
  addTree(b, seed, all, branching);
  if (header.kind === 'normal') {
    addRobotsProbes(b);
    addFeatures(b, seed, all);
    addTrapFamilies(b, seed, branching);
    if (header.realism !== undefined) addRealistic(b, seed, header.realism);
  } else {
    addHostile(b);
    addSitemaps(b, seed);
  }
  const home = b.resources.get('/');
  if (home?.type === 'page') home.links.push(...b.homeExtras);
  return { header, branching, resources: b.resources, sitemapPaths: robotsSitemapPaths(header) };
}

/** Chance of a tree page of the realistic web to carry a link to a 404. */
const DEAD_LINK_ODDS = 0.08;

/**
 * The realistic profile's additions to a normal host (see realistic.ts): links to 404s on every
 * tree page (5–10% of the URLs), binaries, redirects, a body over the 10 MB cap.
 */
function addRealistic(b: PlanBuilder, seed: number, r: HostRealism): void {
  const me = b.header.index;
  for (const page of b.treePages()) {
    const rng = new Rng(mix(seed, 'realistic-links', me, page.id));
    // Most of a page's links repeat URLs other pages link too: one dead link on 8% of the pages
    // makes about 7% of the host's distinct URLs (and so of a full crawl's fetches) 404s.
    const dead = rng.chance(DEAD_LINK_ODDS) ? 1 : 0;
    const links: LinkSpec[] = [];
    for (let j = 0; j < dead; j++) {
      const path = `/removed/${page.id}-${j}.html`;
      b.add({ type: 'status', path, status: 404 });
      links.push({ ...rootLink(me, path), variant: sameHostVariant(rng) });
    }
    for (const kind of ['jpg', 'pdf', 'zip'] as const) {
      if (!rng.chance(BINARY_LINK_ODDS[kind])) continue;
      const size = BINARY_SIZES[kind];
      const dir =
        kind === 'jpg' ? '/media/img-' : kind === 'pdf' ? '/files/doc-' : '/downloads/pack-';
      const path = `${dir}${page.id}.${kind}`;
      b.add({
        type: 'file',
        path,
        file: kind,
        bytes: lognormal(rng, size.mu, size.sigma, size.capBytes),
      });
      links.push(rootLink(me, path));
    }
    // Spread the additions through the page's links (deterministically).
    for (const l of links) page.links.splice(rng.int(0, page.links.length), 0, l);
  }
  if (r.redirects) {
    const h = b.header;
    const target = h.pages > 1 ? treePath(seed, me, 1) : '/';
    b.redirect('/latest', 302, target, me, target);
    b.link('/latest');
    for (let k = 2; k < Math.min(h.pages, 5); k++) {
      const to = treePath(seed, me, k);
      b.redirect(`/moved/p${k}.html`, 301, `${schemeOf(h)}://{host}:{port}${to}`, me, to);
      b.link(`/moved/p${k}.html`);
    }
  }
  if (r.hugeDownload !== null)
    b.hostile(
      r.hugeDownload === 'length' ? '/downloads/full-dump.html' : '/downloads/stream-dump.html',
      r.hugeDownload === 'length' ? 'huge' : 'huge-chunked',
    );
}

/** Lazily built, cached plans of every host. */
export class PlanCache {
  private readonly plans = new Map<number, HostPlan>();

  constructor(
    readonly seed: number,
    readonly headers: readonly HostHeader[],
  ) {}

  /** The plan of host i (built on first use). */
  get(i: number): HostPlan {
    let plan = this.plans.get(i);
    if (plan === undefined) {
      const header = this.headers[i];
      if (header === undefined) throw new Error(`no host ${i}`);
      plan = buildPlan(this.seed, header, this.headers);
      this.plans.set(i, plan);
    }
    return plan;
  }
}
