/** Why a URL was kept out of the frontier as a likely crawler trap. */
export type TrapRule =
  'url_too_long' | 'path_too_deep' | 'repeated_segments' | 'too_deep' | 'too_many_hops';

export interface TrapLimits {
  /** Longest URL accepted (characters). */
  maxUrlLength: number;
  /** Most path segments accepted. */
  maxPathSegments: number;
  /** Most hops from a seed. */
  maxDepth: number;
  /**
   * Most same-host hops from a page another host links to (or a seed, or a sitemap entry): the
   * brief's "at most 3 hops from pages with links from other hosts".
   */
  maxHops: number;
}

export const DEFAULT_TRAP_LIMITS: TrapLimits = {
  maxUrlLength: 2048,
  maxPathSegments: 16,
  maxDepth: 8,
  maxHops: 3,
};

/**
 * Cheap structural trap rules applied to every discovered link (a normalized URL): length, path
 * depth, hops from a seed, same-host hops from a page linked by another host, and repeated
 * path-segment runs such as `/a/b/a/b/` or `/x/x/x/`. Returns the first rule broken, or null.
 */
export function checkTrapRules(
  url: string,
  depth: number,
  limits: TrapLimits = DEFAULT_TRAP_LIMITS,
  hops = 0,
): TrapRule | null {
  if (url.length > limits.maxUrlLength) return 'url_too_long';
  if (depth > limits.maxDepth) return 'too_deep';
  if (hops > limits.maxHops) return 'too_many_hops';
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  if (pathStart < 0) return null;
  const q = url.indexOf('?', pathStart);
  const path = url.slice(pathStart, q < 0 ? undefined : q);
  const segments = path.split('/').filter(Boolean);
  if (segments.length > limits.maxPathSegments) return 'path_too_deep';
  if (hasRepeatedRun(segments)) return 'repeated_segments';
  return null;
}

/** True when some run of 1–3 segments repeats immediately, 3 times for single segments, twice for longer runs. */
function hasRepeatedRun(seg: string[]): boolean {
  for (let len = 1; len <= 3; len++) {
    const needed = len === 1 ? 3 : 2;
    for (let i = 0; i + len * needed <= seg.length; i++) {
      let reps = 1;
      while (reps < needed && sameRun(seg, i, i + len * reps, len)) reps++;
      if (reps >= needed) return true;
    }
  }
  return false;
}

function sameRun(seg: string[], a: number, b: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (seg[a + k] !== seg[b + k]) return false;
  return true;
}
