import { Tokenizer } from 'htmlparser2';
import { Extractor } from './extract-html-extractor';

/**
 * Deepest element nesting kept. Deeper start tags are left out (their text is kept), with the
 * end tags that match them; browsers cap the depth too (Blink at 512).
 */
export const MAX_NESTING_DEPTH = 256;

/**
 * Most start tags read. 500,000 elements is several times what a real 10 MB page has, and the
 * text and link caps are reached long before; the rest of a document past it is not read.
 */
export const MAX_ELEMENTS = 500_000;

/** A link as written in the page: resolve it against the page's effective base. */
export interface PageLink {
  /** The `href` attribute, trimmed, not resolved. */
  href: string;
  /** The link's own `rel` contains `nofollow`. */
  nofollow: boolean;
}

/** What one pass over the document collects. */
export interface DocumentFacts {
  title: string;
  description: string;
  /** Visible text, whitespace collapsed, at most `maxTextChars` code units. */
  text: string;
  textTruncated: boolean;
  /** `<html lang>` (or `xml:lang`) as written. */
  htmlLang: string | null;
  /** `<meta http-equiv="content-language">` as written. */
  metaLanguage: string | null;
  /** `content` of every `<meta name="robots">` (or `name` = our product token). */
  metaRobots: string[];
  /** The first `<base href>`, as written. */
  baseHref: string | null;
  /** The first `<link rel="canonical" href>`, as written. */
  canonicalHref: string | null;
  links: PageLink[];
  linksTruncated: boolean;
  /** Start and end tags left out to stay within the depth cap. */
  droppedTags: number;
  /** The document had more than `maxElements` start tags; the rest was not read. */
  htmlTruncated: boolean;
  /** Elements opened (start tags not left out, plus elements implied by `</p>` and `</br>`). */
  elements: number;
  /**
   * Deepest nesting of open elements reached: at most `maxDepth`, plus one for a raw-text
   * element (`<script>`, `<style>`, `<title>`, …), which is never left out.
   */
  deepest: number;
}

/** Limits of {@link extractHtml}. */
export interface ExtractLimits {
  /** Longest visible text kept, in UTF-16 code units. */
  maxTextChars: number;
  /** Most links kept, in document order. */
  maxLinks: number;
  /** Longest title and description kept, in UTF-16 code units. */
  maxFieldChars: number;
  /** Also read `<meta name="{productToken}">` as robots directives (lowercase). */
  productToken: string | null;
  /** Deepest element nesting (default {@link MAX_NESTING_DEPTH}). */
  maxDepth?: number;
  /** Most start tags read (default {@link MAX_ELEMENTS}). */
  maxElements?: number;
}

/**
 * Reads a decoded HTML document in one streaming pass over htmlparser2's tokenizer — no DOM —
 * and collects the title, meta description and robots, language hints, base and canonical
 * hrefs, links, and the visible text: everything outside hidden subtrees (head, scripts,
 * styles, navigation, header, footer, asides, SVG, …), with block elements breaking words.
 *
 * Elements open and close as in the DOM htmlparser2's Parser would build (the same tokenizer,
 * and its tree rules: void elements, implied closes such as `<li>` closing an open `<li>` or
 * `<div>` an open `<p>`, an end tag closing every element above its own, `</p>` and `</br>`
 * with no open element creating an empty one, self-closing `<x/>` only in SVG and MathML, and
 * everything still open closing at the end), on a stack of open elements that is both the
 * tree position and the hidden-subtree state. The stack is capped at `maxDepth`: deeper start
 * tags are left out (read as a space; a nested `<a>` at the cap closes the open one instead,
 * as browsers do, so unclosed links are all kept), and so are the end tags that match them,
 * innermost first. At most `maxElements` start tags are read. Linear in the document's length.
 *
 * @param html the decoded document
 */
export function extractHtml(html: string, limits: ExtractLimits): DocumentFacts {
  const extractor = new Extractor(
    html,
    limits,
    limits.maxDepth ?? MAX_NESTING_DEPTH,
    limits.maxElements ?? MAX_ELEMENTS,
  );
  const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: true }, extractor);
  extractor.tokenizer = tokenizer;
  tokenizer.write(html);
  tokenizer.end();
  return extractor.finish();
}
