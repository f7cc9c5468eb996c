/** Bounds and start of the re-crawl interval (RECRAWL_* settings). */
export interface IntervalBounds {
  minMs: number;
  maxMs: number;
  initialMs: number;
}

/**
 * The change-rate model of BRIEF.md: after each capture a URL's re-crawl interval halves if its
 * content changed and grows by half if it did not, within [min, max]. A URL seen for the first
 * time starts at the initial interval. Pages that change often are visited often; stable ones
 * drift towards the maximum.
 */
export function nextInterval(
  previousMs: number | undefined,
  change: 'new' | 'changed' | 'unchanged',
  b: IntervalBounds,
): number {
  const raw =
    previousMs === undefined || change === 'new'
      ? b.initialMs
      : change === 'changed'
        ? previousMs / 2
        : previousMs * 1.5;
  return Math.round(Math.min(b.maxMs, Math.max(b.minMs, raw)));
}
