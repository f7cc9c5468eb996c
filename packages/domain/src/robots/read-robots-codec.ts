import type { CompiledRule } from './compile-rule';
import type { ReadRobots } from './parse-robots';

/** One rule on the wire: flags (1 allow, 2 anchored), specificity, pattern, then its pieces. */
type WireRule = [number, number, string, ...string[]];
type Wire = [number | null, string[], WireRule[]];

/**
 * {@link ReadRobots} as one JSON string, for a worker thread to hand back a large robots.txt it
 * read. The event loop's share is one `JSON.parse` and a loop building the rule objects:
 * measured on a 790 KiB file of 17,000 rules, 5–25 ms against 30–85 ms for reading it, and
 * several times less than a structured clone of the rule objects (~35 ms).
 */
export function encodeReadRobots(read: ReadRobots): string {
  const rules = read.rules.map((r): WireRule => [
    (r.allow ? 1 : 0) | (r.anchored ? 2 : 0),
    r.specificity,
    r.pattern,
    ...r.pieces,
  ]);
  const wire: Wire = [read.crawlDelayS, read.sitemaps, rules];
  return JSON.stringify(wire);
}

/** The {@link ReadRobots} of {@link encodeReadRobots}; throws on anything else. */
export function decodeReadRobots(text: string): ReadRobots {
  const wire = JSON.parse(text) as unknown;
  if (!Array.isArray(wire) || wire.length !== 3) throw new Error('not an encoded robots.txt');
  const [crawlDelayS, sitemaps, rules] = wire as unknown[];
  if (
    (crawlDelayS !== null && typeof crawlDelayS !== 'number') ||
    !Array.isArray(sitemaps) ||
    !sitemaps.every((s) => typeof s === 'string') ||
    !Array.isArray(rules)
  ) {
    throw new Error('not an encoded robots.txt');
  }
  return {
    crawlDelayS,
    sitemaps,
    rules: rules.map(decodeRule),
  };
}

function decodeRule(raw: unknown): CompiledRule {
  if (
    !Array.isArray(raw) ||
    raw.length < 4 ||
    typeof raw[0] !== 'number' ||
    typeof raw[1] !== 'number' ||
    !raw.every((v, i) => i < 2 || typeof v === 'string')
  ) {
    throw new Error('not an encoded robots.txt rule');
  }
  const [flags, specificity, pattern, ...pieces] = raw as WireRule;
  return { allow: (flags & 1) === 1, anchored: (flags & 2) === 2, specificity, pattern, pieces };
}
