/**
 * A host's URL families (url-shape.ts) as host-quality.ts judges its pages against them: a family
 * whose latest pages keep coming back near-identical is closed, and so is a new family whose first
 * page looks like a closed one's.
 */
import { hammingDistance } from '../dedupe';
import { MAX_FAMILY_HASHES, type HostQualityData } from './host-quality-data';
import type { QualityLimits } from './quality-limits';
import { paramSet, type UrlShape } from './url-shape';

/** Families remembered per host; the least observed are forgotten first. */
const MAX_FAMILIES = 200;

/** A host's families, by family key (as stored). */
type Families = HostQualityData['f'];

/**
 * Adds a page to its family (null SimHash: a soft 404); true when it repeated the family: near
 * its recent SimHashes (twice as near for siblings sharing a title shape), the same text but for
 * its numbers, or a new family's first page near a closed family's pages.
 */
export function observeFamily(
  families: Families,
  limits: QualityLimits,
  shape: UrlShape,
  simhash: string | null,
  title: string,
  textShape: string | null,
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
  fam.run = stale ? fam.run + 1 : 0;
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
