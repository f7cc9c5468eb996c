/**
 * A host's quality state as stored in Redis (host-quality.ts applies it): its URL families,
 * learned parameters, packed observations, the soft-404 probe's answer and today's counters,
 * with the bounds that keep it a few kilobytes.
 */
import { z } from 'zod';
import { EMPTY_SIMHASH } from '../dedupe';

/** SimHashes kept per family (the most recent). */
export const MAX_FAMILY_HASHES = 6;

/** Observations kept for learning no-op parameters (oldest forgotten first). */
export const MAX_OBSERVATIONS = 120;
/** Observations kept under one "URL without a parameter" key. */
export const MAX_OBSERVATIONS_PER_KEY = 4;

/** Title characters kept (abstracted) for comparisons. */
const TITLE_MAX = 200;
/** A title with digit runs abstracted: sibling pages of a calendar or pager share it. */
export function titleShape(title: string): string {
  return title.trim().toLowerCase().replace(/\d+/g, '#').slice(0, TITLE_MAX);
}

const simhashHex = z.string().regex(/^[0-9a-f]{16}$/);
const familySchema = z.object({
  /** Pages observed. */
  n: z.number().int().min(0),
  /** Consecutive repeats (near-identical, or no novelty once judged), up to the latest. */
  run: z.number().int().min(0),
  /** Consecutive pages without novelty (link-novelty.ts), up to the latest; judged or not. */
  d: z.number().int().min(0).optional(),
  /** New links into the family found on pages of the host's other families. */
  x: z.number().int().min(0).optional(),
  /** Recent SimHashes. */
  h: z.array(simhashHex).max(MAX_FAMILY_HASHES),
  /** Why it was closed. */
  c: z.enum(['template_exhausted', 'facet_explosion', 'soft_404']).optional(),
  /** Parameter-name combinations used (bounded by maxFacetCombos + 1). */
  s: z.array(z.string().max(2048)).max(64).optional(),
  /** The latest page's title with digit runs abstracted. */
  t: z.string().max(TITLE_MAX).optional(),
  /** Recent text shapes (digests of the text with digit runs abstracted). */
  z: z
    .array(z.string().regex(/^[0-9a-f]{16}$/))
    .max(MAX_FAMILY_HASHES)
    .optional(),
});
/** One observed fetch for parameter learning: [param, value, sha256 prefix, simhash]. */
export type Observation = [param: string, value: string, sha: string, simhash: string];
/**
 * A packed observation line: `key \t param \t value \t sha256 prefix \t simhash` (normalized
 * URLs hold no tab or newline). Lines that do not match are skipped when unpacked.
 */
const OBSERVATION_LINE =
  /^([0-9a-f]{16})\t([^\t]{0,256})\t([^\t]{0,2048})\t([0-9a-f]{0,16})\t([0-9a-f]{0,16})$/;

/** The state as stored in Redis (validated when read back). */
export const hostQualitySchema = z.object({
  v: z.literal(1),
  f: z.record(z.string().max(2048), familySchema),
  /** Learned parameters: `noop` (stripped) or `real` (never stripped again). */
  p: z.record(z.string().max(256), z.enum(['noop', 'real'])),
  /**
   * Observations for parameter learning, oldest first, packed one per line (OBSERVATION_LINE)
   * under the fingerprint of the URL without the parameter ('' param: the URL itself). Packed
   * so that reading a host's state costs one string, and unpacked only when a fetch needs it.
   */
  o: z.string().max(MAX_OBSERVATIONS * 2400),
  /** The soft-404 probe's answer (null: probed, nothing to compare, e.g. a real 404). */
  pr: z
    .object({ s: z.number().int(), h: simhashHex, t: z.string().max(TITLE_MAX).optional() })
    .nullable()
    .optional(),
  /** Today's counters (UTC day number): fetches, exact duplicates, budget cut (pages) or 0. */
  d: z.object({
    day: z.number().int(),
    n: z.number().int().min(0),
    dup: z.number().int().min(0),
    cut: z.number().int().min(0),
  }),
});
/** A host's quality state, as stored. */
export type HostQualityData = z.infer<typeof hostQualitySchema>;

/** The packed observations (`o`) by key, oldest first, at most MAX_OBSERVATIONS_PER_KEY each. */
export function unpackObservations(packed: string): Map<string, Observation[]> {
  const out = new Map<string, Observation[]>();
  if (packed === '') return out;
  for (const line of packed.split('\n')) {
    const m = OBSERVATION_LINE.exec(line);
    if (!m) continue;
    const list = out.get(m[1]!) ?? [];
    if (list.length < MAX_OBSERVATIONS_PER_KEY) list.push([m[2]!, m[3]!, m[4]!, m[5]!]);
    out.set(m[1]!, list);
  }
  return out;
}

/** Observations by key packed back into `o`, one OBSERVATION_LINE each. */
export function packObservations(obs: Map<string, Observation[]>): string {
  const lines: string[] = [];
  for (const [key, list] of obs) for (const o of list) lines.push(`${key}\t${o.join('\t')}`);
  return lines.join('\n');
}

/** A SimHash that says something: 16 hex digits, not the empty text's. */
export const isSimhash = (h: string) => /^[0-9a-f]{16}$/.test(h) && h !== EMPTY_SIMHASH;
/** UTC day number of a time (ms). */
export const dayOf = (ms: number) => Math.floor(ms / 86_400_000);

/** The state of a host never seen. */
export function emptyData(now: number): HostQualityData {
  return { v: 1, f: {}, p: {}, o: '', d: { day: dayOf(now), n: 0, dup: 0, cut: 0 } };
}
