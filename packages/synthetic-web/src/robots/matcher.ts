/**
 * A small RFC 9309 robots.txt parser and matcher, independent of the crawler's own code: groups
 * by user-agent (case-insensitive product token, `*` as fallback, groups for the same agent
 * merged), longest match with Allow winning ties, `*` and `$` patterns, percent-encoding
 * normalisation, `Crawl-delay` and `Sitemap` lines. A leading UTF-8 BOM and CRLF/CR line ends are
 * accepted.
 */

/** One Allow or Disallow line. */
export interface RobotsRule {
  allow: boolean;
  /** Pattern after percent-encoding normalisation. */
  pattern: string;
  /** Compiled matcher (anchored at the start of path+query). */
  regex: RegExp;
}

/** One user-agent group. */
export interface RobotsGroup {
  /** Lowercased product tokens of the group's User-agent lines (`*` included as is). */
  agents: string[];
  rules: RobotsRule[];
  /** Crawl-delay in seconds, or null when the group has none. */
  crawlDelayS: number | null;
}

/** A parsed robots.txt. */
export interface ParsedRobots {
  groups: RobotsGroup[];
  /** Absolute URLs of `Sitemap:` lines, in order. */
  sitemaps: string[];
}

/** The rules that apply to one product token. */
export interface RobotsPolicy {
  rules: RobotsRule[];
  /** Crawl-delay in seconds, or null. */
  crawlDelayS: number | null;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * Percent-encoding normalisation for comparison: non-ASCII characters are UTF-8 percent-encoded,
 * `%XX` of unreserved characters is decoded, other `%XX` get upper-case hex.
 */
export function normalizeEncoding(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (ch === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      const code = parseInt(s.slice(i + 1, i + 3), 16);
      const dec = String.fromCharCode(code);
      out += code < 0x80 && UNRESERVED.test(dec) ? dec : `%${s.slice(i + 1, i + 3).toUpperCase()}`;
      i += 2;
    } else if (ch.charCodeAt(0) > 0x7e || ch.charCodeAt(0) < 0x21) {
      const cp = s.codePointAt(i) ?? 0;
      if (cp > 0xffff) i++;
      for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) {
        out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      }
    } else {
      out += ch;
    }
  }
  return out;
}

function compile(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const re = body
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${re}${anchored ? '$' : ''}`, 's');
}

function tokenOf(value: string): string {
  const v = value.trim().toLowerCase();
  if (v === '*') return '*';
  const m = /^[^\s/]+/.exec(v);
  return m ? m[0] : v;
}

/** Parses robots.txt text (BOM, CRLF, comments and unknown lines tolerated). */
export function parseRobots(text: string): ParsedRobots {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let current: RobotsGroup | null = null;
  let lastWasAgent = false;
  for (const rawLine of body.split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = (hash < 0 ? rawLine : rawLine.slice(0, hash)).trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase().replace(/[\s_]/g, '-');
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent' || key === 'useragent') {
      if (!lastWasAgent || current === null) {
        current = { agents: [], rules: [], crawlDelayS: null };
        groups.push(current);
      }
      current.agents.push(tokenOf(value));
      lastWasAgent = true;
      continue;
    }
    if (key === 'sitemap') {
      if (value !== '') sitemaps.push(value);
      continue;
    }
    lastWasAgent = false;
    if (current === null) continue;
    if (key === 'allow' || key === 'disallow') {
      if (value === '') continue;
      const pattern = normalizeEncoding(value);
      current.rules.push({ allow: key === 'allow', pattern, regex: compile(pattern) });
    } else if (key === 'crawl-delay') {
      const n = Number(value);
      if (Number.isFinite(n) && n >= 0) current.crawlDelayS = n;
    }
  }
  return { groups, sitemaps };
}

/**
 * The merged rules of every group naming `token` (case-insensitive), else of every `*` group,
 * else no rules (everything allowed).
 */
export function policyFor(parsed: ParsedRobots, token: string): RobotsPolicy {
  const t = token.toLowerCase();
  let chosen = parsed.groups.filter((g) => g.agents.includes(t));
  if (chosen.length === 0) chosen = parsed.groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  const delays = chosen.map((g) => g.crawlDelayS).filter((d): d is number => d !== null);
  return { rules, crawlDelayS: delays.length > 0 ? Math.max(...delays) : null };
}

/** The policy a robots.txt `text` gives `token` (see {@link policyFor}). */
export function robotsPolicyOf(text: string, token: string): RobotsPolicy {
  return policyFor(parseRobots(text), token);
}

/**
 * What a host's robots.txt says: its policy, null when it has none (everything allowed), or
 * `deny` when it answers 5xx (nothing allowed).
 */
export type HostRobots = RobotsPolicy | null | 'deny';

/**
 * Decides one path against a policy: the longest matching pattern wins, Allow wins ties, no match
 * means allowed; `/robots.txt` is always allowed.
 * @param pathAndQuery path plus query, dot segments already resolved.
 */
export function isAllowed(policy: RobotsPolicy, pathAndQuery: string): boolean {
  const path = normalizeEncoding(pathAndQuery);
  if (path === '/robots.txt') return true;
  let best: RobotsRule | null = null;
  for (const rule of policy.rules) {
    if (!rule.regex.test(path)) continue;
    if (
      best === null ||
      rule.pattern.length > best.pattern.length ||
      (rule.pattern.length === best.pattern.length && rule.allow && !best.allow)
    ) {
      best = rule;
    }
  }
  return best === null || best.allow;
}

/**
 * Path plus query of a URL or request-target with dot segments resolved and the fragment dropped,
 * query kept as sent (for robots matching).
 */
export function robotsPathOf(urlOrTarget: string): string {
  try {
    const u = new URL(urlOrTarget, 'http://x.invalid/');
    return `${u.pathname}${u.search}`;
  } catch {
    return urlOrTarget;
  }
}
