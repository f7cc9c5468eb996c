/**
 * Content revisions across cycles: on hosts tagged `changing`, each page changes in each cycle
 * >= 2 with probability 20 %. A page's revision is the last cycle it changed in (1 = original).
 */
import { mix } from '../prng.js';
import type { HostHeader } from './assign.js';

/** Share of pages of a changing host that change per cycle, in percent. */
export const CHANGE_PERCENT = 20;

/**
 * Revision of page `pageId` of a host in `cycle`: the latest cycle c in 2..cycle in which it
 * changed, else 1.
 */
export function revisionOf(seed: number, h: HostHeader, pageId: number, cycle: number): number {
  if (!h.features.includes('changing')) return 1;
  for (let c = cycle; c >= 2; c--) {
    if (mix(seed, 'change', h.index, pageId, c) % 100 < CHANGE_PERCENT) return c;
  }
  return 1;
}

const BASE_MS = Date.UTC(2024, 0, 1);
const DAY_MS = 86_400_000;

/** Last-Modified of a page revision, ms since epoch (whole seconds; later revisions are later). */
export function lastModifiedMs(
  seed: number,
  h: HostHeader,
  pageId: number,
  revision: number,
): number {
  const offsetDays = mix(seed, 'lm', h.index, pageId) % 300;
  const hour = mix(seed, 'lm-h', h.index, pageId) % 24;
  return revision === 1
    ? BASE_MS + offsetDays * DAY_MS + hour * 3_600_000
    : BASE_MS + (330 + revision) * DAY_MS;
}
