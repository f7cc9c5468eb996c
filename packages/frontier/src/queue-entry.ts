import { CrawlerError } from '@crawler/domain/errors';
import { z } from 'zod';
import type { LeasedUrl, PriorCapture, UrlSource } from './types';

/**
 * Queue entries are compact strings, `fp|attempts|depth|redirects|source[hops]|url` (the URL
 * last, so it may contain '|'); `hops` — internal hops since a page linked from another host or a
 * seed — is written after the source letter only when it is not 0. While leased they carry their tier in front: `tier|entry`. Compactness is
 * what keeps Redis memory per queued URL low. A re-crawl's prior capture rides after the source
 * letter as `;` + base64url(JSON) — only re-crawl entries pay for it, and the Lua scripts, which
 * read no further than the attempts, never look inside.
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
  hops?: number | undefined;
  url: string;
  prior?: PriorCapture | undefined;
}): string {
  const prior = e.prior ? `;${Buffer.from(JSON.stringify(e.prior)).toString('base64url')}` : '';
  const hops = e.hops ? String(e.hops) : '';
  return `${e.urlFp}|${e.attempts ?? 0}|${e.depth}|${e.redirects ?? 0}|${SOURCE_CODE[e.source ?? 'link']}${hops}${prior}|${e.url}`;
}

const taggedPattern =
  /^([0-9r])\|([0-9a-f]{16})\|(\d+)\|(\d+)\|(\d+)\|([SLRMXC])(\d*)(?:;([\w-]*))?\|(.+)$/s;
const entryPattern = /^([0-9a-f]{16})\|(\d+)\|(\d+)\|(\d+)\|([SLRMXC])(\d*)(?:;([\w-]*))?\|(.+)$/s;

const MAX_VALIDATOR = 1024;
const priorSchema = z.strictObject({
  etag: z.string().max(MAX_VALIDATOR).optional(),
  lastModified: z.string().max(MAX_VALIDATOR).optional(),
  recordId: z.string().max(200).optional(),
  capturedAt: z.number().int().positive().optional(),
  payloadDigest: z.string().max(200).optional(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

/** Decodes a prior capture; one that does not validate is dropped (the fetch is just unconditional). */
function decodePrior(raw: string | undefined): { prior?: PriorCapture } {
  if (!raw) return {};
  try {
    const parsed = priorSchema.safeParse(JSON.parse(Buffer.from(raw, 'base64url').toString()));
    return parsed.success ? { prior: stripUndefined(parsed.data) } : {};
  } catch {
    return {};
  }
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Raised when Redis hands back something the frontier did not write. */
export class FrontierDataError extends CrawlerError {
  readonly code = 'FRONTIER_BAD_DATA';
  readonly retry = 'give_up';
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
    hops: Number(m[7] || 0),
    url: m[9]!,
    ...decodePrior(m[8]),
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
    hops: Number(m[6] || 0),
    url: m[8]!,
    ...decodePrior(m[7]),
  };
}

export const deadLetterSchema = z.object({
  h: z.string(),
  q: z.string(),
  r: z.string(),
  e: z.string(),
  t: z.number(),
});
