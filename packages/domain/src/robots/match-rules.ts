import { toLooseForm, toStrictForm } from './canonicalize-path';
import { compareRules, matchRule, type CompiledRule } from './compile-rule';

/** Finds the rule that decides a path: the longest match, Allow winning ties; null when none matches. */
export type RuleMatcher = (matchPath: string) => CompiledRule | null;

/**
 * Rules grouped by their first literal piece (the text before any `*`), and the distinct
 * lengths of those pieces in ascending order. A rule can match a path only when its first
 * piece is a prefix of it, so a path's candidates are the groups of its prefixes of those
 * lengths. One map entry per distinct piece: a 500 KiB robots.txt of ~17,000 rules compiles to
 * ~4 MB, where a character trie (one map per character) took ~26 MB and 350 ms.
 */
interface PrefixIndex {
  readonly byPrefix: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly lengths: readonly number[];
}

function buildIndex(rules: readonly CompiledRule[]): PrefixIndex | null {
  if (rules.length === 0) return null;
  const byPrefix = new Map<string, CompiledRule[]>();
  for (const rule of rules) {
    const first = rule.pieces[0] ?? '';
    const group = byPrefix.get(first);
    if (group === undefined) byPrefix.set(first, [rule]);
    else group.push(rule);
  }
  const lengths = [...new Set([...byPrefix.keys()].map((k) => k.length))].sort((a, b) => a - b);
  return { byPrefix, lengths };
}

/**
 * The best rule of `index` matching `subject`, or `best` when none beats it. Prefixes are
 * visited shortest first and each group in file order, as a trie walk along the path would.
 */
function bestIn(
  index: PrefixIndex,
  subject: string,
  best: CompiledRule | null,
): CompiledRule | null {
  let winner = best;
  for (const len of index.lengths) {
    if (len > subject.length) break;
    const group = index.byPrefix.get(len === subject.length ? subject : subject.slice(0, len));
    if (group === undefined) continue;
    for (const rule of group) {
      if ((winner === null || compareRules(rule, winner) < 0) && matchRule(rule, subject)) {
        winner = rule;
      }
    }
  }
  return winner;
}

/**
 * Compiles rules into a matcher. Each rule is a candidate only when the path starts with its
 * literal prefix (looked up per distinct prefix length), so the cost depends on how many rules
 * share the path's prefixes, not on how many rules the file has. Disallow rules see the path
 * in loose form, Allow rules in strict form (see `canonicalize-path.ts`).
 */
export function createRuleMatcher(rules: readonly CompiledRule[]): RuleMatcher {
  const allow = buildIndex(rules.filter((r) => r.allow));
  const disallow = buildIndex(rules.filter((r) => !r.allow));
  return (matchPath) => {
    const best = disallow ? bestIn(disallow, toLooseForm(matchPath), null) : null;
    return allow ? bestIn(allow, toStrictForm(matchPath, false), best) : best;
  };
}
