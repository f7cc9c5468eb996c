import { compileRule, type CompiledRule } from './compile-rule';
import { extractMatchPath } from './extract-match-path';
import { createRuleMatcher, type RuleMatcher } from './match-rules';

/** The rules of one robots.txt for one product token, compiled once. */
export interface RobotsRules {
  /** True when `url` (absolute, same origin) may be fetched by `productToken`. Dot segments in the URL path are resolved BEFORE matching; percent-encoding normalized on both sides; longest match wins, Allow wins ties; `*` and `$`; /robots.txt itself is always allowed. */
  isAllowed(url: string): boolean;
  /** Crawl-delay in seconds for the matched group, or null. */
  crawlDelayS: number | null;
  /** Absolute Sitemap: URLs. */
  sitemaps: string[];
  /**
   * Estimated heap bytes these compiled rules hold (rules, their pieces, the prefix index,
   * sitemaps), for caches that budget memory. Calibrated against measured heap growth
   * (`apps/coordinator/test/measure-memory.ts`): within ±50% of it from 1 rule to 17,000.
   */
  approxBytes: number;
}

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB; content past that is ignored. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/**
 * Longest line kept, in characters; the rest of a longer line is ignored. google/robotstxt
 * reads lines into a 2083 × 8 byte buffer that keeps 16,663 characters; we do the same, so a
 * huge line cannot hold the parser and rules behave as Google's do.
 */
export const ROBOTS_MAX_LINE = 2083 * 8 - 1;

type Directive = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay';

/** Keys, lowercase, with the misspellings google/robotstxt accepts. */
const DIRECTIVES: ReadonlyMap<string, Directive> = new Map([
  ['user-agent', 'user-agent'],
  ['useragent', 'user-agent'],
  ['user agent', 'user-agent'],
  ['allow', 'allow'],
  ['disallow', 'disallow'],
  ['dissallow', 'disallow'],
  ['dissalow', 'disallow'],
  ['disalow', 'disallow'],
  ['diasllow', 'disallow'],
  ['disallaw', 'disallow'],
  ['sitemap', 'sitemap'],
  ['site-map', 'sitemap'],
  ['crawl-delay', 'crawl-delay'],
  ['crawldelay', 'crawl-delay'],
  ['crawl delay', 'crawl-delay'],
]);

/** The product token at the start of a User-agent value (`Googlebot/2.1 (+…)` → `Googlebot`). */
const AGENT_TOKEN = /^[A-Za-z0-9_-]*/;
const CRAWL_DELAY = /^\d+(?:\.\d+)?|^\.\d+/;

/** One group: its User-agent lines (as far as they concern us), rules and crawl-delay. */
interface Group {
  specific: boolean;
  global: boolean;
  rules: { allow: boolean; value: string }[];
  crawlDelayS: number | null;
}

/**
 * Parses a robots.txt body (RFC 9309) for one product token (e.g. 'crawlerbot' — the token
 * only, never a full UA string). Handles a UTF-8 BOM, CRLF/CR line ends, a 500 KiB cap
 * (content past it ignored), group merging for the same agent, the '*' group fallback,
 * empty groups.
 *
 * Grouping follows RFC 9309 and google/robotstxt: consecutive User-agent lines open one group
 * that ends at the next User-agent line after an Allow/Disallow; Sitemap, Crawl-delay and
 * unknown lines do not end it; rules before any User-agent are ignored. User-agent values are
 * matched by their leading token (`[A-Za-z0-9_-]*`), case-insensitively; every group naming
 * `productToken` is merged and used — even when it has no rules (then everything is
 * allowed) — and only when none names it are the `*` groups used. Lines may use `key value`
 * without a colon; `#` starts a comment. A line cut by the 500 KiB cap is dropped.
 *
 * Crawl-delay is the largest value in the groups used (non-numeric or negative ignored).
 * Sitemap lines apply to the whole file; relative ones are resolved against `robotsUrl`,
 * only http(s) ones are kept, without duplicates.
 */
export function parseRobots(body: string, robotsUrl: string, productToken: string): RobotsRules {
  return robotsRulesOf(readRobots(body, robotsUrl, productToken));
}

/**
 * What {@link parseRobots} reads from a body before it builds the matcher: the compiled rules
 * of the groups used, the crawl-delay and the sitemaps. Plain data, so a worker thread can read
 * a large file and hand only this back (`encodeReadRobots`).
 */
export interface ReadRobots {
  rules: CompiledRule[];
  crawlDelayS: number | null;
  sitemaps: string[];
}

/** The per-byte half of {@link parseRobots}: lines, groups and compiled rules (see there). */
export function readRobots(body: string, robotsUrl: string, productToken: string): ReadRobots {
  const token = productToken.trim().toLowerCase();
  const groups: Group[] = [];
  const sitemaps = new Set<string>();
  let group: Group | null = null;

  for (const line of splitLines(capBody(body))) {
    const entry = parseLine(line);
    if (entry === null) continue;
    const [directive, value] = entry;
    switch (directive) {
      case 'user-agent': {
        if (group === null || group.rules.length > 0) {
          group = { specific: false, global: false, rules: [], crawlDelayS: null };
          groups.push(group);
        }
        if (value.startsWith('*') && (value.length === 1 || /^\s/.test(value.slice(1)))) {
          group.global = true;
        } else if (token !== '' && (AGENT_TOKEN.exec(value)?.[0] ?? '').toLowerCase() === token) {
          group.specific = true;
        }
        break;
      }
      case 'allow':
      case 'disallow':
        group?.rules.push({ allow: directive === 'allow', value });
        break;
      case 'crawl-delay': {
        const delay = parseCrawlDelay(value);
        if (group !== null && delay !== null) {
          group.crawlDelayS = Math.max(group.crawlDelayS ?? 0, delay);
        }
        break;
      }
      case 'sitemap': {
        const sitemap = absoluteSitemap(value, robotsUrl);
        if (sitemap !== null) sitemaps.add(sitemap);
        break;
      }
    }
  }

  const specific = groups.filter((g) => g.specific);
  const used = specific.length > 0 ? specific : groups.filter((g) => g.global);
  const rules: CompiledRule[] = [];
  let crawlDelayS: number | null = null;
  for (const g of used) {
    for (const { allow, value } of g.rules) {
      const rule = compileRule(value, allow);
      if (rule !== null) rules.push(rule);
    }
    if (g.crawlDelayS !== null) crawlDelayS = Math.max(crawlDelayS ?? 0, g.crawlDelayS);
  }
  return { rules, crawlDelayS, sitemaps: [...sitemaps] };
}

/** The matcher over rules already read (one pass over the rules: no text is scanned again). */
export function robotsRulesOf({ rules, crawlDelayS, sitemaps }: ReadRobots): RobotsRules {
  const matcher = rules.length === 0 ? null : createRuleMatcher(rules);
  return {
    isAllowed: (url: string) => isAllowedBy(matcher, url),
    crawlDelayS,
    sitemaps,
    approxBytes: approxBytesOf(rules, sitemaps),
  };
}

/** Fixed cost of one parsed robots.txt: the result object, its closure, the matcher (bytes). */
const RULES_BASE_BYTES = 1_200;
/** Per compiled rule: the rule object, its pieces array, its place in the prefix index (bytes). */
const RULE_BYTES = 230;

/** {@link RobotsRules.approxBytes}: strings count twice (the pattern and its pieces). */
function approxBytesOf(rules: readonly CompiledRule[], sitemaps: readonly string[]): number {
  let bytes = RULES_BASE_BYTES;
  for (const rule of rules) bytes += RULE_BYTES + 2 * rule.pattern.length;
  for (const s of sitemaps) bytes += 40 + s.length;
  return bytes;
}

function isAllowedBy(matcher: RuleMatcher | null, url: string): boolean {
  if (matcher === null) return true;
  const target = extractMatchPath(url);
  if (target === '/robots.txt') return true;
  return matcher(target)?.allow ?? true;
}

/** Strips a BOM and cuts the body at {@link ROBOTS_MAX_BYTES} UTF-8 bytes, dropping a cut line. */
function capBody(body: string): string {
  let text = body;
  if (text.startsWith('\ufeff')) text = text.slice(1);
  else if (text.startsWith('\u00ef\u00bb\u00bf')) text = text.slice(3); // BOM read as Latin-1
  if (text.length * 3 <= ROBOTS_MAX_BYTES || Buffer.byteLength(text) <= ROBOTS_MAX_BYTES)
    return text;
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code <= 0xdbff ? 4 : 3;
    if (bytes + size > ROBOTS_MAX_BYTES) break;
    bytes += size;
    end += size === 4 ? 2 : 1;
  }
  if (end >= text.length) return text;
  const next = text.charCodeAt(end);
  if (next === 10 || next === 13) return text.slice(0, end);
  const lastBreak = Math.max(text.lastIndexOf('\n', end - 1), text.lastIndexOf('\r', end - 1));
  return text.slice(0, lastBreak + 1);
}

function splitLines(text: string): string[] {
  // A plain string split is several times faster than the regular expression.
  return text.includes('\r') ? text.split(/\r\n|\r|\n/) : text.split('\n');
}

/** `[directive, value]` of a line, or null for blank, comment, malformed and unknown lines. */
function parseLine(rawLine: string): [Directive, string] | null {
  let line = rawLine.length > ROBOTS_MAX_LINE ? rawLine.slice(0, ROBOTS_MAX_LINE) : rawLine;
  const hash = line.indexOf('#');
  if (hash >= 0) line = line.slice(0, hash);
  line = line.trim();
  if (line === '') return null;
  let key: string;
  let value: string;
  const colon = line.indexOf(':');
  if (colon >= 0) {
    key = line.slice(0, colon).trim();
    value = line.slice(colon + 1).trim();
  } else {
    // google/robotstxt: a missing colon is accepted when exactly two words remain.
    const words = /^(\S+)\s+(\S+)$/.exec(line);
    if (words === null) return null;
    key = words[1] ?? '';
    value = words[2] ?? '';
  }
  const directive = DIRECTIVES.get(key.toLowerCase().replace(/\s+/g, ' '));
  return directive === undefined ? null : [directive, value];
}

function parseCrawlDelay(value: string): number | null {
  const match = CRAWL_DELAY.exec(value);
  if (match === null) return null;
  const delay = Number(match[0]);
  return Number.isFinite(delay) ? delay : null;
}

function absoluteSitemap(value: string, robotsUrl: string): string | null {
  if (value === '') return null;
  try {
    const url = new URL(value, robotsUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}
