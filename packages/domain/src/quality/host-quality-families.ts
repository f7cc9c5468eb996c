/**
 * A host's URL families (url-shape.ts) as host-quality.ts judges its pages against them: a family
 * whose latest pages keep coming back near-identical, or keep bringing no new link outside the
 * family (the novelty rule), is closed, and so is a new family whose first page looks like a
 * closed one's.
 */
import { hammingDistance } from '../dedupe';
import { MAX_FAMILY_HASHES, type HostQualityData } from './host-quality-data';
import type { PageNovelty } from './link-novelty';
import type { QualityLimits } from './quality-limits';
import { paramSet, type UrlShape } from './url-shape';

/** Families remembered per host; the least observed are forgotten first. */
const MAX_FAMILIES = 200;

/** A host's families, by family key (as stored). */
type Families = HostQualityData['f'];

/**
 * A page without novelty: fewer than `noveltyMinLinks` new links outside its family, yet at
 * least one new link into it — a generator's page, linking its own next page and the site's
 * fixed navigation. A page bringing nothing new at all is the end of a finite site, not a
 * generator: late in a host's crawl every link is known, and its last pages must not close
 * their families.
 */
export function lacksNovelty(novelty: PageNovelty, limits: QualityLimits): boolean {
  return novelty.outside < limits.noveltyMinLinks && novelty.inside >= 1;
}

/**
 * Credits the families of a page's new links outside its own (`PageNovelty.entries`) with being
 * found from elsewhere; a family not observed yet is added for it while the host has room for
 * more families (a credit never evicts one: a site of one-page families would churn them).
 */
export function creditEntries(families: Families, entries: readonly string[]): void {
  let room = MAX_FAMILIES - Object.keys(families).length;
  for (const name of entries) {
    let fam = families[name];
    if (!fam) {
      if (room <= 0) continue;
      room--;
      fam = { n: 0, run: 0, h: [] };
      families[name] = fam;
    }
    fam.x = (fam.x ?? 0) + 1;
  }
}

/**
 * Whether a family feeds itself: fewer new links into it were found on the host's other pages
 * than half its pages — a generator is entered once (a home page links the calendar) and found
 * on its own pages after that, while a real family's pages are mostly found on others' (a
 * listing's items, a section's articles), and its pages are never judged without novelty.
 */
function feedsItself(fam: Families[string]): boolean {
  return (fam.x ?? 0) * 2 < fam.n;
}

/**
 * Adds a page to its family (null SimHash: a soft 404); true when it repeated the family: near
 * its recent SimHashes (twice as near for siblings sharing a title shape), the same text but for
 * its numbers, a new family's first page near a closed family's pages, or a page without novelty
 * (`novelty`, when its links were counted: {@link lacksNovelty}) once its family has
 * `noveltyMinPages` pages and feeds itself ({@link feedsItself}) — the family's pages without
 * novelty before then count too, so a generator whose every page lacked novelty is closed at
 * that page.
 */
export function observeFamily(
  families: Families,
  limits: QualityLimits,
  shape: UrlShape,
  simhash: string | null,
  title: string,
  textShape: string | null,
  novelty: PageNovelty | null = null,
): boolean {
  let fam = families[shape.family];
  if (!fam) {
    evictFamilies(families);
    fam = { n: 0, run: 0, h: [] };
    families[shape.family] = fam;
  }
  let stale: boolean;
  // A new family whose first page looks like a closed family's pages: one generator behind
  // several URL forms (a calendar by month and by day).
  let lookalike = false;
  if (simhash === null) stale = true;
  else {
    // Siblings sharing a title shape ("Events of #/#") may differ a little more.
    const bits = limits.nearBits * (title !== '' && fam.t === title ? 2 : 1);
    lookalike = fam.n === 0 && closedFamilyLooksLike(families, limits.nearBits, simhash);
    // The same text but for its numbers is a repeat however short the page is (a tiny
    // calendar page is all numbers, so its SimHash moves a lot).
    stale =
      lookalike ||
      (textShape !== null && (fam.z ?? []).includes(textShape)) ||
      fam.h.some((h) => hammingDistance(h, simhash) <= bits);
    if (textShape !== null) {
      fam.z = [...(fam.z ?? []), textShape].slice(-MAX_FAMILY_HASHES);
    }
    if (title !== '') fam.t = title;
    fam.h.push(simhash);
    if (fam.h.length > MAX_FAMILY_HASHES) fam.h.shift();
  }
  fam.n++;
  const dry = simhash !== null && novelty !== null && lacksNovelty(novelty, limits);
  if (dry) fam.d = (fam.d ?? 0) + 1;
  else delete fam.d;
  // Without novelty, a family of fewer pages is not judged (a site's small sections).
  const judgedDry = dry && fam.n >= limits.noveltyMinPages && feedsItself(fam);
  if (judgedDry) stale = true;
  fam.run = stale ? Math.max(fam.run + 1, judgedDry ? fam.d! : 0) : 0;
  // Closed when its latest pages keep repeating and the repeats are at least half of it: a
  // family of many distinct pages survives a few near-copies in a row.
  if (
    !fam.c &&
    stale &&
    (lookalike || (fam.run >= limits.familyCloseAfter && fam.run * 2 >= fam.n))
  )
    fam.c = simhash === null ? 'soft_404' : 'template_exhausted';
  if (shape.params.length > 0) {
    const set = paramSet(shape);
    fam.s ??= [];
    if (!fam.s.includes(set) && fam.s.length < limits.maxFacetCombos) fam.s.push(set);
  }
  return stale;
}

function closedFamilyLooksLike(families: Families, nearBits: number, simhash: string): boolean {
  for (const fam of Object.values(families))
    if (
      fam.c === 'template_exhausted' &&
      fam.h.some((h) => hammingDistance(h, simhash) <= nearBits)
    )
      return true;
  return false;
}

function evictFamilies(families: Families): void {
  const names = Object.keys(families);
  if (names.length < MAX_FAMILIES) return;
  // Closed families are the knowledge worth keeping; forget the least observed open one.
  let victim: string | null = null;
  for (const name of names) {
    const fam = families[name]!;
    if (fam.c) continue;
    if (victim === null || fam.n < families[victim]!.n) victim = name;
  }
  delete families[victim ?? names[0]!];
}
