import { z } from 'zod';
import type { LeasedUrl, UrlSource } from './types';

/**
 * Queue entries are compact strings, `fp|attempts|depth|redirects|source|url` (the URL last, so
 * it may contain '|'); while leased they carry their tier in front: `tier|entry`. Compactness is
 * what keeps Redis memory per queued URL low.
 */
const SOURCE_CODE: Record<UrlSource, string> = {
  seed: 'S',
  link: 'L',
  redirect: 'R',
  sitemap: 'M',
  'sitemap-file': 'X',
  recrawl: 'C',
};
const CODE_SOURCE: Record<string, UrlSource> = {
  S: 'seed',
  L: 'link',
  R: 'redirect',
  M: 'sitemap',
  X: 'sitemap-file',
  C: 'recrawl',
};

export function encodeEntry(e: {
  urlFp: string;
  attempts?: number;
  depth: number;
  redirects?: number;
  source?: UrlSource;
  url: string;
}): string {
  return `${e.urlFp}|${e.attempts ?? 0}|${e.depth}|${e.redirects ?? 0}|${SOURCE_CODE[e.source ?? 'link']}|${e.url}`;
}

const taggedPattern = /^([0-3r])\|([0-9a-f]{16})\|(\d+)\|(\d+)\|(\d+)\|([SLRMXC])\|(.+)$/s;
const entryPattern = /^([0-9a-f]{16})\|(\d+)\|(\d+)\|(\d+)\|([SLRMXC])\|(.+)$/s;

/** Raised when Redis hands back something the frontier did not write. */
export class FrontierDataError extends Error {
  readonly code = 'FRONTIER_BAD_DATA';
}

/** Parses a leased (tier-tagged) entry. */
export function decodeTagged(raw: string): LeasedUrl {
  const m = taggedPattern.exec(raw);
  if (!m) throw new FrontierDataError(`queue entry invalid: ${raw.slice(0, 80)}`);
  return {
    tier: m[1] as LeasedUrl['tier'],
    urlFp: m[2]!,
    attempts: Number(m[3]),
    depth: Number(m[4]),
    redirects: Number(m[5]),
    source: CODE_SOURCE[m[6]!]!,
    url: m[7]!,
  };
}

/** Parses an untagged entry (dead letters). */
export function decodeEntry(raw: string): Omit<LeasedUrl, 'tier'> {
  const m = entryPattern.exec(raw);
  if (!m) throw new FrontierDataError(`queue entry invalid: ${raw.slice(0, 80)}`);
  return {
    urlFp: m[1]!,
    attempts: Number(m[2]),
    depth: Number(m[3]),
    redirects: Number(m[4]),
    source: CODE_SOURCE[m[5]!]!,
    url: m[6]!,
  };
}

export const deadLetterSchema = z.object({
  h: z.string(),
  q: z.string(),
  r: z.string(),
  e: z.string(),
  t: z.number(),
});
