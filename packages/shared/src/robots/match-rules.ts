import { toLooseForm, toStrictForm } from './canonicalize-path';
import { compareRules, matchRule, type CompiledRule } from './compile-rule';

/** Finds the rule that decides a path: the longest match, Allow winning ties; null when none matches. */
export type RuleMatcher = (matchPath: string) => CompiledRule | null;

interface TrieNode {
  readonly children: Map<number, TrieNode>;
  /** Rules whose first literal piece ends at this node. */
  readonly rules: CompiledRule[];
}

function newNode(): TrieNode {
  return { children: new Map(), rules: [] };
}

/** A trie over the rules' first literal pieces (the text before any `*`). */
function buildTrie(rules: readonly CompiledRule[]): TrieNode {
  const root = newNode();
  for (const rule of rules) {
    const first = rule.pieces[0] ?? '';
    let node = root;
    for (let i = 0; i < first.length; i++) {
      const code = first.charCodeAt(i);
      let child = node.children.get(code);
      if (child === undefined) {
        child = newNode();
        node.children.set(code, child);
      }
      node = child;
    }
    node.rules.push(rule);
  }
  return root;
}

/** The best rule of `trie` matching `subject`, or `best` when none beats it. */
function bestIn(trie: TrieNode, subject: string, best: CompiledRule | null): CompiledRule | null {
  let node: TrieNode | undefined = trie;
  let winner = best;
  for (let i = 0; node !== undefined; i++) {
    for (const rule of node.rules) {
      if ((winner === null || compareRules(rule, winner) < 0) && matchRule(rule, subject)) {
        winner = rule;
      }
    }
    if (i >= subject.length) break;
    node = node.children.get(subject.charCodeAt(i));
  }
  return winner;
}

/**
 * Compiles rules into a matcher. Each rule is a candidate only when the path starts with its
 * literal prefix, found by walking a trie along the path, so the cost depends on how many
 * rules share the path's prefix, not on how many rules the file has. Disallow rules see the
 * path in loose form, Allow rules in strict form (see `canonicalize-path.ts`).
 */
export function createRuleMatcher(rules: readonly CompiledRule[]): RuleMatcher {
  const allowTrie = buildTrie(rules.filter((r) => r.allow));
  const disallowTrie = buildTrie(rules.filter((r) => !r.allow));
  const hasAllow = allowTrie.children.size > 0 || allowTrie.rules.length > 0;
  const hasDisallow = disallowTrie.children.size > 0 || disallowTrie.rules.length > 0;
  return (matchPath) => {
    const best = hasDisallow ? bestIn(disallowTrie, toLooseForm(matchPath), null) : null;
    return hasAllow ? bestIn(allowTrie, toStrictForm(matchPath, false), best) : best;
  };
}
