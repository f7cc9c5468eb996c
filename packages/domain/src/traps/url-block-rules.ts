import { z } from 'zod';
import { normalizePercentEncoding } from '../url/normalize-percent-encoding';

// Operator URL block patterns: what a host policy may carry to keep some of a host's URLs out of
// the crawl. A pattern is matched against the URL's **path only** — the normalized path as the
// frontier stores it (percent-encoding normalized, runs of `/` collapsed), never the query
// string: `/search` blocks `/search?q=x` too, and no pattern can tell two queries apart.
//
// - Without `*`, a pattern is a **path prefix**: `/private/` blocks `/private/` and everything
//   under it (and `/priv` blocks `/private` and `/privacy`: end a folder with `/`).
// - With `*`, it is a **glob** that must match the whole path: `*` is any run of characters,
//   `/` included; `*.pdf` blocks every path ending in `.pdf`, `/*/print/*` any path with a
//   `/print/` segment below the first level. End a glob with `*` to make it a prefix.
// - `?` is exactly one character of the path (not the start of a query), in both kinds.
//
// Patterns are canonicalized like the paths they are matched against (non-ASCII and characters a
// path cannot hold raw are percent-encoded as UTF-8, `%xx` escapes uppercased, escapes of
// unreserved characters decoded, `//` collapsed, `**` collapsed), so `/café/` and `/caf%c3%a9/`
// are one pattern, and a pattern means what it says against normalized URLs.

/** Longest pattern accepted, in characters as written. */
export const MAX_BLOCK_PATTERN_LENGTH = 256;
/** Most `*` in one pattern (bounds the work of one match). */
export const MAX_BLOCK_PATTERN_STARS = 8;
/** Most patterns on one host policy (an exact host or a `*.example.com` pattern). */
export const MAX_BLOCK_PATTERNS_PER_POLICY = 100;
/** Most patterns in the whole crawl (every agent holds them all). */
export const MAX_BLOCK_PATTERNS_TOTAL = 10_000;

/** A pattern in canonical form, or why it was refused (a sentence naming the problem). */
export type ParsedBlockPattern = { ok: true; pattern: string } | { ok: false; error: string };

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
/** Spaces and control characters (C0 and DEL), which no URL path holds raw. */
const hasSpaceOrControl = (s: string): boolean =>
  /\s/.test(s) || [...s].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127);
const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;
/** Paths every pattern is tried on: one that matches both matches every path. */
const EVERY_PATH_PROBES = ['/', '/zq9-x/y.z'];

/**
 * Checks a pattern as an operator wrote it and returns its canonical form (what is stored and
 * matched), or an error that says what to change. Leading and trailing spaces are ignored.
 */
export function parseBlockPattern(raw: string): ParsedBlockPattern {
  const text = raw.trim();
  if (text === '') return fail('the pattern is empty');
  if (text.length > MAX_BLOCK_PATTERN_LENGTH)
    return fail(
      `the pattern is ${text.length} characters long; at most ${MAX_BLOCK_PATTERN_LENGTH}`,
    );
  if (URL_LIKE.test(text))
    return fail('give the path only (such as /private/), not a URL: the host is the policy’s own');
  if (!text.startsWith('/') && !text.startsWith('*'))
    return fail(
      `"${text}" must start with "/" (a path prefix such as /private/) or "*" (a glob such as *.pdf)`,
    );
  if (hasSpaceOrControl(text))
    return fail('the pattern contains a space or a control character; write it as %20');
  if (text.includes('#'))
    return fail('the pattern contains "#": fragments are not part of a crawled URL');
  if (BAD_ESCAPE.test(text))
    return fail('a "%" must start a two-digit hex escape such as %20 (write a literal % as %25)');
  const stars = text.split('*').length - 1;
  if (stars > MAX_BLOCK_PATTERN_STARS)
    return fail(`the pattern has ${stars} "*"; at most ${MAX_BLOCK_PATTERN_STARS}`);
  const pattern = canonicalize(text);
  if (DOT_SEGMENT.test(pattern))
    return fail('the pattern has a "." or ".." segment, which no normalized path contains');
  const compiled = compileBlockPattern(pattern);
  if (EVERY_PATH_PROBES.every((p) => compiled.test(p)))
    return fail(
      `"${pattern}" matches every URL of the host: block the host itself instead (blocked: true)`,
    );
  return { ok: true, pattern };
}

function fail(error: string): ParsedBlockPattern {
  return { ok: false, error };
}

/** Percent-encoding as in a normalized path (`?` is a wildcard here, so each side of it). */
function canonicalize(text: string): string {
  return text
    .split('?')
    .map((part) => normalizePercentEncoding(part, 'path'))
    .join('?')
    .replace(/\/{2,}/g, '/')
    .replace(/\*{2,}/g, '*');
}

/** A block pattern as the API and the published rule set take it: canonical, or a 400. */
export const blockPatternSchema = z.string().transform((raw, ctx) => {
  const parsed = parseBlockPattern(raw);
  if (parsed.ok) return parsed.pattern;
  ctx.addIssue({ code: 'custom', message: parsed.error });
  return z.NEVER;
});

/** One compiled pattern: `test` takes a path (no query) and answers in O(path) for most. */
export interface CompiledBlockPattern {
  /** The canonical pattern. */
  readonly source: string;
  test(path: string): boolean;
}

/** A literal run of a pattern between two `*`; `?` in it matches any one character. */
interface Piece {
  text: string;
  wild: boolean;
}

/**
 * Compiles a canonical pattern (see {@link parseBlockPattern}; not checked again here) once, for
 * many tests. A glob is cut at its `*` into pieces: the first must start the path, the last end
 * it, and each one between is found leftmost after the previous — which is exact for `*`-only
 * globs and costs no backtracking.
 */
export function compileBlockPattern(pattern: string): CompiledBlockPattern {
  const pieces: Piece[] = pattern.split('*').map((text) => ({ text, wild: text.includes('?') }));
  if (pieces.length === 1) {
    const only = pieces[0]!;
    return {
      source: pattern,
      test: (path) => path.length >= only.text.length && matchesAt(path, 0, only),
    };
  }
  const head = pieces[0]!;
  const tail = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p.text !== '');
  const minLength = pieces.reduce((n, p) => n + p.text.length, 0);
  return {
    source: pattern,
    test(path) {
      if (path.length < minLength) return false;
      const end = path.length - tail.text.length;
      if (!matchesAt(path, 0, head) || !matchesAt(path, end, tail)) return false;
      let at = head.text.length;
      for (const piece of middle) {
        const found = findFrom(path, at, end, piece);
        if (found < 0) return false;
        at = found + piece.text.length;
      }
      return true;
    },
  };
}

/** Whether `piece` matches `s` at `at` (the caller checked that it fits). */
function matchesAt(s: string, at: number, piece: Piece): boolean {
  if (!piece.wild) return s.startsWith(piece.text, at);
  const t = piece.text;
  for (let k = 0; k < t.length; k++) {
    const c = t.charCodeAt(k);
    if (c !== 63 /* ? */ && c !== s.charCodeAt(at + k)) return false;
  }
  return true;
}

/** The first index in [from, end − length] where `piece` matches, or −1. */
function findFrom(s: string, from: number, end: number, piece: Piece): number {
  const last = end - piece.text.length;
  if (!piece.wild) {
    const i = s.indexOf(piece.text, from);
    return i >= 0 && i <= last ? i : -1;
  }
  for (let i = from; i <= last; i++) if (matchesAt(s, i, piece)) return i;
  return -1;
}

/**
 * The path of an absolute URL (`http://h:80/a/b?q` → `/a/b`), without query or fragment; `/`
 * when it has none. A string scan, meant for normalized URLs.
 */
export function pathOfUrl(url: string): string {
  const scheme = url.indexOf('://');
  let start = -1;
  let end = url.length;
  for (let i = scheme < 0 ? 0 : scheme + 3; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 63 /* ? */ || c === 35 /* # */) {
      end = i;
      break;
    }
    if (c === 47 /* / */ && start < 0) start = i;
  }
  return start < 0 ? '/' : url.slice(start, end);
}
