/**
 * What a page's links bring that its host's pages did not link recently: the novelty rule's input
 * (host-quality-families.ts). A page of a generator (a calendar, an endless pager) links its own
 * next page and the site's fixed navigation: nothing new outside its URL family. A real page of a
 * real family links new pages elsewhere (a listing its items, an article its sources).
 */
import { urlFamily } from './url-shape';

/** New links of one page, by whether they fall in the page's own URL family. */
export interface PageNovelty {
  /** New links outside the page's URL family (other families of the host, other hosts). */
  outside: number;
  /** New links into the page's own URL family (a calendar's next month). */
  inside: number;
  /**
   * The URL families (of the page's host) of its new links outside its family, one per link, and
   * the page's own when it was not found on a page of its host (a seed, a sitemap entry): how a
   * family's pages are found from elsewhere (a listing's items), which a generator's are not.
   */
  entries?: string[];
}

/** Link fingerprints remembered per generation (two generations are kept). */
export const LINK_MEMORY_GENERATION = 512;

/**
 * The links one host's pages linked recently, as 28-bit keys taken from their URL fingerprints
 * (small integers: no string kept, a few bytes each; two links sharing a key — about one in
 * 2^28 per lookup — make the second look known). Bounded by two generations: when the current one
 * is full it becomes the old one and the older is forgotten, and a link met again in the old
 * generation moves back to the current one — a site's navigation, linked from every page, stays
 * known however many other links pass; a link forgotten counts as new again, which only makes
 * the rule slower to judge a family.
 */
export class LinkMemory {
  private current = new Set<number>();
  private old = new Set<number>();

  constructor(private readonly perGeneration = LINK_MEMORY_GENERATION) {}

  /** Whether the link (its 16-hex URL fingerprint) is new to this memory; remembers it. */
  see(urlFp: string): boolean {
    const key = Number.parseInt(urlFp.slice(0, 7), 16);
    if (Number.isNaN(key)) return true;
    if (this.current.has(key)) return false;
    const known = this.old.has(key);
    if (this.current.size >= this.perGeneration) {
      this.old = this.current;
      this.current = new Set();
    }
    this.current.add(key);
    return !known;
  }

  /** Links remembered (both generations; a link in both counts twice). */
  get size(): number {
    return this.current.size + this.old.size;
  }
}

/**
 * Counts the links of a page (normalized, with their fingerprints and hosts) that `memory` did not
 * hold, inside and outside the page's URL family (naming the host's families those outside fall
 * in), and remembers them. The page's own URL is
 * remembered first (a link to itself is nothing new); `external`: the page was not found on a
 * page of its host (its family is then named among the entries). Only new links of the page's host have
 * their family computed, so a page whose links are all known costs one lookup per link.
 */
export function countNovelty(
  memory: LinkMemory,
  page: { url: string; urlFp: string; host: string; external?: boolean },
  links: ReadonlyArray<{ url: string; urlFp: string; host: string }>,
): PageNovelty {
  memory.see(page.urlFp);
  let family: string | null = null;
  let outside = 0;
  let inside = 0;
  const entries: string[] = [];
  if (page.external === true) {
    family = urlFamily(page.url);
    entries.push(family);
  }
  for (const link of links) {
    if (!memory.see(link.urlFp)) continue;
    if (link.host !== page.host) {
      outside++;
      continue;
    }
    family ??= urlFamily(page.url);
    const target = urlFamily(link.url);
    if (target === family) inside++;
    else {
      outside++;
      entries.push(target);
    }
  }
  return { outside, inside, entries };
}
