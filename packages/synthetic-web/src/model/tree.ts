/**
 * Tree pages of a normal host: their paths, the branching factor that keeps every tree page
 * within 3 links of the home page, and the links each page carries.
 */
import { mix, Rng } from '../prng.js';
import type { HostHeader } from './assign.js';
import type { LinkSpec, LinkVariant } from './resources.js';

const SECTIONS = ['news', 'blog', 'guides', 'products', 'about', 'team'];

/** Smallest branching b >= 3 with 1 + b + b^2 + b^3 >= pages (tree depth <= 3). */
export function branchingFor(pages: number): number {
  let b = 3;
  while (1 + b + b * b + b * b * b < pages) b++;
  return b;
}

/** Parent id of tree page k (k >= 1). */
export function parentOf(k: number, branching: number): number {
  return Math.floor((k - 1) / branching);
}

/** Link depth of tree page k from the home page. */
export function treeDepth(k: number, branching: number): number {
  let d = 0;
  for (let x = k; x > 0; x = parentOf(x, branching)) d++;
  return d;
}

/**
 * Canonical path key of tree page k of host `host`: `/`, `/news/p7.html`, `/blog/2019/p8.html`,
 * `/guides/item-9/` or `/products?lang=en&page=10` (query sorted).
 */
export function treePath(seed: number, host: number, k: number): string {
  if (k === 0) return '/';
  const sec = SECTIONS[k % SECTIONS.length] as string;
  switch (mix(seed, 'style', host, k) % 4) {
    case 0:
      return `/${sec}/p${k}.html`;
    case 1:
      return `/${sec}/${2015 + (k % 10)}/p${k}.html`;
    case 2:
      return `/${sec}/item-${k}/`;
    default:
      return `/${sec}?lang=en&page=${k}`;
  }
}

/** Picks how a same-host link is written. */
export function sameHostVariant(rng: Rng): LinkVariant {
  const u = rng.next();
  if (u < 0.3) return 'root';
  if (u < 0.6) return 'relative';
  if (u < 0.72) return 'absolute';
  if (u < 0.78) return 'upper-host';
  if (u < 0.84) return 'upper-scheme';
  if (u < 0.9) return 'protocol-relative';
  return 'dots';
}

/** Picks how a cross-host link is written. */
export function crossHostVariant(rng: Rng): LinkVariant {
  const u = rng.next();
  if (u < 0.6) return 'absolute';
  if (u < 0.75) return 'upper-host';
  if (u < 0.9) return 'upper-scheme';
  return 'protocol-relative';
}

/** A link spec with random decoration (tracking parameters, fragment, query order). */
export function decoratedLink(
  rng: Rng,
  host: number,
  path: string,
  variant: LinkVariant,
): LinkSpec {
  const t = rng.next();
  const tracking: LinkSpec['tracking'] = t < 0.06 ? 1 : t < 0.09 ? 2 : t < 0.12 ? 3 : 0;
  return { host, path, variant, tracking, fragment: rng.chance(0.1), unsorted: rng.chance(0.6) };
}

/**
 * Links of tree page k: parent, children, 2-6 random same-host pages and 0-2 cross-host links
 * (to another host's home page or one of its tree pages).
 */
export function treeLinks(
  seed: number,
  self: HostHeader,
  k: number,
  branching: number,
  all: readonly HostHeader[],
): LinkSpec[] {
  const rng = new Rng(mix(seed, 'links', self.index, k));
  const links: LinkSpec[] = [];
  const same = (id: number): void => {
    links.push(
      decoratedLink(rng, self.index, treePath(seed, self.index, id), sameHostVariant(rng)),
    );
  };
  if (k > 0) same(parentOf(k, branching));
  for (let c = k * branching + 1; c <= k * branching + branching && c < self.pages; c++) same(c);
  if (self.pages > 1) {
    const extra = rng.int(2, 6);
    for (let i = 0; i < extra; i++) same(rng.int(0, self.pages - 1));
  }
  const cross = all.length > 1 ? rng.int(0, 2) : 0;
  for (let i = 0; i < cross; i++) {
    let j = rng.int(0, all.length - 1);
    if (j === self.index) j = (j + 1) % all.length;
    const target = all[j] as HostHeader;
    const id =
      target.kind === 'normal' && target.pages > 1 && rng.chance(0.5)
        ? rng.int(1, target.pages - 1)
        : 0;
    links.push(decoratedLink(rng, j, treePath(seed, j, id), crossHostVariant(rng)));
  }
  return links;
}
