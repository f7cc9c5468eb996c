/**
 * Deterministic filler text: sentences and paragraphs from a fixed vocabulary.
 */
import type { Rng } from '../prng.js';

const WORDS = (
  'alpha amber anchor apple arch atlas autumn badge basin beacon birch blossom border breeze bridge ' +
  'bronze canyon canvas carbon castle cedar chalk channel cinder circuit citrus cliff cloud cobalt comet ' +
  'coral cotton crane crystal current dawn delta desert dune echo ember engine falcon feather fern field ' +
  'flint forest fossil frost garden garnet glacier granite gravel harbor hazel horizon island ivory jasmine ' +
  'juniper kernel lagoon lantern lattice ledger lemon lilac linen lotus lumen maple marble meadow meteor ' +
  'mineral mirror monsoon mosaic nectar needle nickel north oasis ocean olive onyx orbit orchard pebble ' +
  'pepper pillar pine planet plaza prairie prism quartz quill rain raven reef ridge river saddle sage ' +
  'salt sand signal silver slate solar spruce stone storm summit tangent thistle thunder timber topaz ' +
  'tower trail tulip tundra valley velvet vessel violet walnut willow window winter yarrow zephyr zinc'
).split(' ');

/** One sentence of 6-16 words, capitalised, ending with a period. */
export function sentence(rng: Rng): string {
  const n = rng.int(6, 16);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  const s = words.join(' ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}

/** One paragraph of 3-8 sentences. */
export function paragraph(rng: Rng): string {
  const n = rng.int(3, 8);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(sentence(rng));
  return out.join(' ');
}

/** A word that never occurs in generated text (for near-duplicates). */
export const FOREIGN_WORD = 'quixotic';
