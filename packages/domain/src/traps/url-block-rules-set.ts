import { z } from 'zod';
import {
  blockPatternSchema,
  compileBlockPattern,
  MAX_BLOCK_PATTERNS_PER_POLICY,
  pathOfUrl,
  type CompiledBlockPattern,
} from './url-block-rules';

/** One host policy's part in the rule set: its block and its URL patterns. */
export const blockRuleSchema = z
  .object({
    /** An exact host (`example.com`) or a pattern (`*.example.com`: it and every host under it). */
    host: z
      .string()
      .min(1)
      .max(255)
      .regex(/^(\*\.)?[a-z0-9._-]+$|^\[[0-9a-f:.]+\]$/, 'a canonical host or *.suffix'),
    /** The policy's own `blocked`; null: not set here (a longer-matching row decides). */
    blocked: z.boolean().nullable(),
    /** Canonical URL block patterns (url-block-rules.ts). */
    patterns: z.array(blockPatternSchema).max(MAX_BLOCK_PATTERNS_PER_POLICY),
  })
  .strict();
export type BlockRule = z.infer<typeof blockRuleSchema>;

/** Every block rule of the crawl, as published (the `rules` field of the hash `blockRulesKey` names, in messages/keys.ts). */
export const blockRuleSetSchema = z
  .object({
    /** When the coordinator built it (ISO 8601). */
    published_at: z.string(),
    rules: z.array(blockRuleSchema),
  })
  .strict();
export type BlockRuleSet = z.infer<typeof blockRuleSetSchema>;

/**
 * Why a URL is kept out: a blocked host or domain (`scope`: the policy's host or `*.suffix`), or
 * one of a policy's URL patterns. `rule` says it in words, for logs.
 */
export type BlockMatch =
  | {
      kind: 'host';
      scope: string;
      /** `blocked example.com` / `blocked *.example.com`. */
      rule: string;
    }
  | {
      kind: 'pattern';
      scope: string;
      pattern: string;
      /** `<host or *.suffix> <pattern>`. */
      rule: string;
    };

/** Anything that can say whether a URL is blocked (the agent's live rules, a compiled set). */
export interface BlockRuleMatcher {
  /** `url` normalized, `host` its host (no port). Null: not blocked. */
  match(url: string, host: string): BlockMatch | null;
}

interface CompiledRule {
  blocked: BlockMatch | null | false;
  patterns: Array<{ match: BlockMatch; compiled: CompiledBlockPattern }>;
}

/**
 * A rule set compiled once for many lookups: a map of exact hosts and one of suffixes, so a URL
 * costs one lookup per label of its host (`a.b.com`: `a.b.com`, then `*.a.b.com`, `*.b.com`,
 * `*.com`), and only the patterns of the rows found are tried, on the path cut once.
 *
 * The block of a host is decided as its effective policy is (hosts/effective-policy.ts): its
 * own row's `blocked` if set, else the longest `*.suffix` that sets it (so `blocked: false` on
 * a host overrides a blocked domain). Patterns add up: those of every row covering the host
 * apply, its own and all its suffixes'.
 */
export class CompiledBlockRules implements BlockRuleMatcher {
  private readonly exact = new Map<string, CompiledRule>();
  /** Keyed by the suffix without `*.`. */
  private readonly suffix = new Map<string, CompiledRule>();
  /** Patterns in the set. */
  readonly patternCount: number;

  constructor(rules: readonly BlockRule[]) {
    let count = 0;
    for (const r of rules) {
      const compiled: CompiledRule = {
        blocked:
          r.blocked === null
            ? null
            : r.blocked
              ? { kind: 'host', scope: r.host, rule: `blocked ${r.host}` }
              : false,
        patterns: r.patterns.map((p) => ({
          match: { kind: 'pattern', scope: r.host, pattern: p, rule: `${r.host} ${p}` },
          compiled: compileBlockPattern(p),
        })),
      };
      count += r.patterns.length;
      if (r.host.startsWith('*.')) this.suffix.set(r.host.slice(2), compiled);
      else this.exact.set(r.host, compiled);
    }
    this.patternCount = count;
  }

  /** True when nothing is blocked (every lookup answers null at once). */
  get empty(): boolean {
    return this.exact.size === 0 && this.suffix.size === 0;
  }

  match(url: string, host: string): BlockMatch | null {
    if (this.empty) return null;
    const own = this.exact.get(host);
    // `undefined`: the block is still undecided along the chain own → longest suffix → shortest.
    let blocked: BlockMatch | false | undefined = own?.blocked ?? undefined;
    let path: string | null = null;
    let hit: BlockMatch | null = null;
    if (own && own.patterns.length > 0) hit = firstMatch(own, (path = pathOfUrl(url)));
    for (
      let name: string | null = this.suffix.size > 0 ? host : null;
      name !== null && (hit === null || blocked === undefined);
    ) {
      const rule = this.suffix.get(name);
      if (rule) {
        if (blocked === undefined && rule.blocked !== null) blocked = rule.blocked;
        if (hit === null && rule.patterns.length > 0)
          hit = firstMatch(rule, (path ??= pathOfUrl(url)));
      }
      const dot = name.indexOf('.');
      name = dot >= 0 ? name.slice(dot + 1) : null;
    }
    return blocked || hit;
  }
}

function firstMatch(rule: CompiledRule, path: string): BlockMatch | null {
  for (const p of rule.patterns) if (p.compiled.test(path)) return p.match;
  return null;
}

/** No rule at all: what agents use until the coordinator has published its set. */
export const NO_BLOCK_RULES = new CompiledBlockRules([]);
