import type { RequestLogEntry } from '@crawler/synthetic-web';
import { targetPath } from './measure-child';

/** What a crawler did inside a measured window, read from the synthetic web's own log. */
export interface WindowCounts {
  /** Responses that ended inside the window, every path but `/robots.txt` (any status). */
  pages: number;
  /** `/robots.txt` responses that ended inside the window. */
  robots: number;
  /** Body bytes on the wire (compressed where encoded) of the `pages`. */
  bytes: number;
  seconds: number;
  /** The best 5-second stretch (pages/s). */
  peakPagesPerS: number;
  /** The best 10-second stretch (pages/s). */
  best10sPagesPerS: number;
  /**
   * Seconds from the window's start until the rate (pages over the 3 s before) first reached
   * 80% of the best 10-second stretch; null without pages.
   */
  rampS: number | null;
  /** Seconds from the window's start to the first page; null without pages. */
  firstPageS: number | null;
}

/** Counts the pages of the log that ended in [startMs, endMs] (the web's log clock). */
export function windowCounts(
  log: readonly RequestLogEntry[],
  startMs: number,
  endMs: number,
): WindowCounts {
  let pages = 0;
  let robots = 0;
  let bytes = 0;
  let firstPageMs = Infinity;
  const seconds = (endMs - startMs) / 1000;
  const perSecond = new Array<number>(Math.max(1, Math.ceil(seconds))).fill(0);
  for (const e of log) {
    if (e.endMs < startMs || e.endMs > endMs) continue;
    if (targetPath(e.target) === '/robots.txt') {
      robots++;
      continue;
    }
    pages++;
    bytes += e.bytes;
    firstPageMs = Math.min(firstPageMs, e.endMs);
    const s = Math.min(perSecond.length - 1, Math.floor((e.endMs - startMs) / 1000));
    perSecond[s] = (perSecond[s] ?? 0) + 1;
  }
  const rate = (from: number, n: number): number => {
    let sum = 0;
    for (let i = from; i < from + n; i++) sum += perSecond[i] ?? 0;
    return sum / n;
  };
  let peak5 = 0;
  let best10 = 0;
  for (let s = 0; s < perSecond.length; s++) {
    if (s + 5 <= perSecond.length) peak5 = Math.max(peak5, rate(s, 5));
    if (s + 10 <= perSecond.length) best10 = Math.max(best10, rate(s, 10));
  }
  if (perSecond.length < 10) best10 = rate(0, perSecond.length);
  let rampS: number | null = null;
  for (let s = 3; s <= perSecond.length && pages > 0; s++)
    if (rate(s - 3, 3) >= 0.8 * best10) {
      rampS = s;
      break;
    }
  return {
    pages,
    robots,
    bytes,
    seconds,
    peakPagesPerS: round1(peak5),
    best10sPagesPerS: round1(best10),
    rampS,
    firstPageS: pages > 0 ? round1((firstPageMs - startMs) / 1000) : null,
  };
}

export function round1(x: number): number {
  return Number(x.toFixed(1));
}

export function round2(x: number): number {
  return Number(x.toFixed(2));
}
