import { z } from 'zod';
import { blockPatternSchema } from '@crawler/domain/traps';

/**
 * `POST /v1/hosts/{host}/block-patterns` and `hosts.addBlockPattern`: a URL block pattern for an
 * exact host or for `*.example.com` (the domain and every host under it). Matched against the
 * URL's path only, never the query: without `*` a path prefix (`/private/`), with `*` a glob
 * that must match the whole path (`*.pdf`, `/print/*.html`; `*` also matches `/`); `?` is one
 * character. At most 256 characters and 8 `*`; 100 patterns per host, 10,000 in all.
 */
export const blockPatternInput = z
  .object({
    pattern: blockPatternSchema.describe(
      'A path prefix (/private/) or a glob with * and ? matching the whole path (*.pdf); never matched against the query',
    ),
  })
  .strict();
export type BlockPatternInput = z.input<typeof blockPatternInput>;

/** `DELETE /v1/hosts/{host}/block-patterns?pattern=…`: the pattern to remove, as written. */
export const removeBlockPatternQuery = z
  .object({ pattern: blockPatternSchema.describe('The pattern to remove (any spelling of it)') })
  .strict();

/** A policy's own pattern. */
export const blockPatternView = z.object({
  /** Canonical form (what is matched). */
  pattern: z.string(),
  created_at: z.string(),
});

/** The URL block patterns of a host or `*.example.com`, and those it gets from its domains. */
export const blockPatternsOutput = z.object({
  host: z.string(),
  kind: z.enum(['host', 'suffix']),
  /** Set on this host or pattern, oldest first. */
  patterns: z.array(blockPatternView),
  /** Set on the `*.suffix` rows covering it (they apply too), longest suffix first. */
  inherited: z.array(z.object({ from: z.string(), pattern: z.string() })),
  /** Add and remove only: false when nothing changed (the pattern was already there). */
  changed: z.boolean().optional(),
});
export type BlockPatternsOutput = z.infer<typeof blockPatternsOutput>;

/** `GET /v1/block-rules`: every block rule agents apply (whole-host blocks and URL patterns). */
export const blockRulesOutput = z.object({
  /** The version agents see (incremented at each publication); null before the first one. */
  version: z.number().int().nullable(),
  published_at: z.string().nullable(),
  rules: z.array(
    z.object({
      /** An exact host, or `*.example.com`. */
      host: z.string(),
      /** The row's own block (null: not set here). */
      blocked: z.boolean().nullable(),
      patterns: z.array(z.string()),
    }),
  ),
  /** Patterns in all, and the most allowed. */
  pattern_count: z.number().int(),
  max_patterns: z.number().int(),
});
export type BlockRulesOutput = z.infer<typeof blockRulesOutput>;
