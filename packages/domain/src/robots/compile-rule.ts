import { toLooseForm, toStrictForm } from './canonicalize-path';

/** One Allow or Disallow line, compiled for matching. */
export interface CompiledRule {
  /** Allow (true) or Disallow (false). */
  readonly allow: boolean;
  /** The pattern as written (after trimming), for explanations. */
  readonly pattern: string;
  /** Literal pieces between `*` wildcards, in the rule's match form (loose or strict). */
  readonly pieces: readonly string[];
  /** The pattern ended in `$`: the match must reach the end of the path. */
  readonly anchored: boolean;
  /** Length of the pattern in match form; the longest matching rule wins. */
  readonly specificity: number;
}

/**
 * Compiles an Allow/Disallow value. Returns `null` for an empty value (RFC 9309: an empty
 * rule matches nothing). A value that does not start with `/` or `*` gets a leading `/`.
 * `*` matches any run of characters, a final `$` anchors the end; elsewhere `$` is literal.
 * Disallow pieces are kept in loose form, Allow pieces in strict form (see
 * `canonicalize-path.ts` for why).
 */
export function compileRule(value: string, allow: boolean): CompiledRule | null {
  let pattern = value.trim();
  if (pattern === '') return null;
  if (!pattern.startsWith('/') && !pattern.startsWith('*')) pattern = `/${pattern}`;
  // The pieces are cut from the pattern: once it is a copy, they keep nothing else alive.
  pattern = detach(pattern);
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const pieces = body
    .replace(/\*{2,}/g, '*')
    .split('*')
    .map((p) => (allow ? toStrictForm(p, true) : toLooseForm(p)));
  let specificity = pieces.length - 1 + (anchored ? 1 : 0);
  for (const p of pieces) specificity += p.length;
  return { allow, pattern, pieces, anchored, specificity };
}

/**
 * A copy of `s` that shares nothing with the text it was cut from. V8 makes a substring of 13
 * or more characters a view into its parent: a compiled rule would keep its whole robots.txt
 * alive (500 KiB for one 30-byte rule), which a cache counting the rules' bytes cannot see.
 */
function detach(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/**
 * True when the rule matches `subject` (a path+query in the rule's match form). Without `$`
 * a rule matches a prefix. Wildcards are matched greedily leftmost, which is exact for this
 * pattern language and linear in the subject (no regular expressions, no backtracking).
 */
export function matchRule(rule: CompiledRule, subject: string): boolean {
  const { pieces, anchored } = rule;
  const first = pieces[0] ?? '';
  if (pieces.length === 1) return anchored ? subject === first : subject.startsWith(first);
  if (!subject.startsWith(first)) return false;
  let pos = first.length;
  const last = pieces.length - 1;
  for (let i = 1; i < last; i++) {
    const piece = pieces[i]!;
    const at = subject.indexOf(piece, pos);
    if (at < 0) return false;
    pos = at + piece.length;
  }
  const tail = pieces[last]!;
  if (anchored) return subject.length - tail.length >= pos && subject.endsWith(tail);
  return tail === '' || subject.indexOf(tail, pos) >= 0;
}

/**
 * Orders rules so the first match is the winner: longest first, Allow before Disallow on a
 * tie (RFC 9309 §2.2.2: "the least restrictive rule").
 */
export function compareRules(a: CompiledRule, b: CompiledRule): number {
  if (a.specificity !== b.specificity) return b.specificity - a.specificity;
  return a.allow === b.allow ? 0 : a.allow ? -1 : 1;
}
