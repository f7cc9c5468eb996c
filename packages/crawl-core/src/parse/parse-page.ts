import { EMPTY_SIMHASH, sha256Hex, simhash64 } from '@crawler/domain/dedupe';
import { normalizeUrl, resolveBase } from '@crawler/domain/url';
import { decodeBody, type CharsetSource } from './decode-body';
import { guessLanguage, primaryLanguage } from './detect-language';
import { extractHtml, type PageLink } from './extract-html';
import type { ExtractedPage } from './extracted-page';
import {
  applyMetaRobots,
  applyXRobotsTag,
  noRobotsDirectives,
  type RobotsDirectives,
} from './robots-directives';

/** Longest main text kept, in UTF-16 code units (about 1 MB of mostly-ASCII text). */
export const MAX_TEXT_CHARS = 1_000_000;
/** Most links kept per page, in document order. */
export const MAX_LINKS = 5000;
/** Longest title and meta description kept, in UTF-16 code units. */
export const MAX_FIELD_CHARS = 2000;

/** What {@link parsePage} reads: one fetched response. */
export interface ParsePageInput {
  /** The URL the body came from (after redirects): the base for relative links. */
  url: string;
  /** The body after content decoding, at most the fetch limit (10 MB by default). */
  body: Uint8Array;
  /** The Content-Type header value, including any `charset` parameter ('' when absent). */
  contentType: string;
  /**
   * The X-Robots-Tag header: one string, or one string per header line when it was repeated
   * (so a `bot: …` scope ends with its line); null when absent.
   */
  xRobotsTag: string | readonly string[] | null;
  /**
   * Our robots product token (e.g. `crawlerbot`): X-Robots-Tag directives scoped to it and
   * `<meta name="crawlerbot">` apply too. Without it, only unscoped directives and
   * `<meta name="robots">` apply.
   */
  productToken?: string;
  /**
   * SHA-256 (64 lowercase hex characters) of `body`, when the caller has computed it already
   * (the agent hashes every body for the content index): saves hashing it twice.
   */
  contentSha256?: string;
}

/** Where {@link ParsedPage.lang} came from. */
export type LanguageSource = 'html' | 'meta' | 'text';

/**
 * A parsed HTML page: plain data (strings, booleans, arrays, null), so it crosses a
 * `postMessage` boundary unchanged and serializes to JSON as is.
 */
export interface ParsedPage {
  url: string;
  /** WHATWG name of the encoding the body was decoded with. */
  charset: string;
  charsetSource: CharsetSource;
  /** `<title>`, whitespace collapsed, at most {@link MAX_FIELD_CHARS}; '' when absent. */
  title: string;
  /** `<meta name="description">` (else `og:description`), collapsed; '' when absent. */
  description: string;
  /**
   * Main visible text: the body without script, style, noscript, nav, header, footer, aside
   * (and other non-content subtrees), whitespace collapsed to single spaces, at most
   * {@link MAX_TEXT_CHARS} code units.
   */
  text: string;
  textTruncated: boolean;
  /** Primary language subtag (`en`, `de`, `ja`, …), or null when neither declared nor guessed. */
  lang: string | null;
  langSource: LanguageSource | null;
  /** Meta robots and X-Robots-Tag directives combined (any noindex makes it noindex). */
  robots: RobotsDirectives;
  /** `<link rel="canonical">` resolved against the effective base and normalized; null if none or invalid. */
  canonical: string | null;
  /** The first `<base href>` as written, or null. */
  baseHref: string | null;
  /** `a[href]` and `area[href]` in document order, as written (at most {@link MAX_LINKS}). */
  links: PageLink[];
  linksTruncated: boolean;
  /** 64-bit SimHash of {@link text} (16 hex chars), for near-duplicate detection. */
  simhash: string;
  /** SHA-256 of the raw body bytes (64 hex chars), the exact-duplicate key. */
  contentSha256: string;
  /**
   * Start and end tags left out because the nesting went deeper than the parser's cap (256
   * levels); their text is kept. Non-zero only for broken or hostile pages.
   */
  droppedTags: number;
  /**
   * The document had more than 500,000 start tags and only those before the 500,001st were
   * parsed (a bound on parser time and memory).
   */
  htmlTruncated: boolean;
  /** Why the HTML could not be read (the page then has no text or links); null on success. */
  parseError: string | null;
}

/**
 * Parses one HTML response: decodes it (BOM, Content-Type, `<meta>` charset; UTF-8, else
 * windows-1252), reads title, description, main text, language, robots directives, canonical,
 * base and links in one streaming pass over htmlparser2's tokenizer (forgiving of any markup;
 * no DOM is built, see {@link extractHtml}), then hashes the text (SimHash) and the body
 * (SHA-256).
 *
 * Never throws: malformed HTML, binary garbage and 10 MB bodies all give a result; a failure
 * inside the parser gives an empty page with {@link ParsedPage.parseError} set. CPU-bound
 * (well under a millisecond for a typical 15 KB page, about half a second for 10 MB): call
 * it through the parse pool on the agent, not on the event loop.
 */
export function parsePage(input: ParsePageInput): ParsedPage {
  const contentSha256 = input.contentSha256 ?? sha256Hex(input.body);
  const robots = noRobotsDirectives();
  const productToken = input.productToken?.trim().toLowerCase() || null;
  try {
    applyXRobotsTag(input.xRobotsTag, robots, productToken ?? undefined);
  } catch {
    // A header we cannot read grants nothing and takes nothing away.
  }
  let charset = 'utf-8';
  let charsetSource: CharsetSource = 'utf8';
  let droppedTags = 0;
  let htmlTruncated = false;
  try {
    const decoded = decodeBody(input.body, input.contentType);
    charset = decoded.charset;
    charsetSource = decoded.charsetSource;
    const facts = extractHtml(decoded.html, {
      maxTextChars: MAX_TEXT_CHARS,
      maxLinks: MAX_LINKS,
      maxFieldChars: MAX_FIELD_CHARS,
      productToken,
    });
    droppedTags = facts.droppedTags;
    htmlTruncated = facts.htmlTruncated;
    for (const content of facts.metaRobots) applyMetaRobots(content, robots);
    const declared = primaryLanguage(facts.htmlLang);
    const metaLang = declared ? null : primaryLanguage(facts.metaLanguage);
    const guessed = declared || metaLang ? null : guessLanguage(facts.text);
    return {
      url: input.url,
      charset,
      charsetSource,
      title: facts.title,
      description: facts.description,
      text: facts.text,
      textTruncated: facts.textTruncated,
      lang: declared ?? metaLang ?? guessed,
      langSource: declared ? 'html' : metaLang ? 'meta' : guessed ? 'text' : null,
      robots,
      canonical: resolveCanonical(input.url, facts.baseHref, facts.canonicalHref),
      baseHref: facts.baseHref,
      links: facts.links,
      linksTruncated: facts.linksTruncated,
      simhash: simhash64(facts.text),
      contentSha256,
      droppedTags,
      htmlTruncated,
      parseError: null,
    };
  } catch (err) {
    return {
      url: input.url,
      charset,
      charsetSource,
      title: '',
      description: '',
      text: '',
      textTruncated: false,
      lang: null,
      langSource: null,
      robots,
      canonical: null,
      baseHref: null,
      links: [],
      linksTruncated: false,
      simhash: EMPTY_SIMHASH,
      contentSha256,
      droppedTags,
      htmlTruncated,
      parseError: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    };
  }
}

function resolveCanonical(
  pageUrl: string,
  baseHref: string | null,
  canonicalHref: string | null,
): string | null {
  if (canonicalHref === null || canonicalHref === '') return null;
  const n = normalizeUrl(canonicalHref, resolveBase(pageUrl, baseHref ?? undefined));
  return n.ok ? n.url : null;
}

/**
 * The link-discovery view of a parsed page, for `discoverLinks`: its links, base and title,
 * and whether the page forbids following them (meta robots or X-Robots-Tag `nofollow`/`none`).
 */
export function toExtractedPage(page: ParsedPage): ExtractedPage {
  return {
    title: page.title,
    baseHref: page.baseHref ?? undefined,
    links: page.links,
    nofollow: page.robots.nofollow,
  };
}
