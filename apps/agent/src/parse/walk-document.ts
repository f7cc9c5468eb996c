/**
 * The slice of a domhandler node (what cheerio's htmlparser2 backend builds) the walker reads;
 * cheerio does not re-export domhandler's types. Elements have `type` `tag`, `script` or
 * `style`, a lowercased `name` and `attribs`; text nodes have `type` `text` and `data`.
 */
export interface DomNode {
  type: string;
  name?: string;
  data?: string;
  attribs?: Record<string, string>;
  children?: DomNode[];
}

/** A link as written in the page: resolve it against the page's effective base. */
export interface PageLink {
  /** The `href` attribute, trimmed, not resolved. */
  href: string;
  /** The link's own `rel` contains `nofollow`. */
  nofollow: boolean;
}

/** What one walk over the document collects. */
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
}

/** Limits of {@link walkDocument}. */
export interface WalkLimits {
  /** Longest visible text kept, in UTF-16 code units. */
  maxTextChars: number;
  /** Most links kept, in document order. */
  maxLinks: number;
  /** Longest title and description kept, in UTF-16 code units. */
  maxFieldChars: number;
  /** Also read `<meta name="{productToken}">` as robots directives (lowercase). */
  productToken: string | null;
}

/** Subtrees whose text is not the page's main text (boilerplate, code, non-rendered). */
const HIDDEN = new Set([
  'head',
  'title',
  'script',
  'style',
  'noscript',
  'nav',
  'footer',
  'header',
  'aside',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'select',
]);

/** Phrasing elements that do not break words: `foo<b>bar</b>` reads `foobar`. */
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'big',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'label',
  'mark',
  'nobr',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
]);

const WHITESPACE = /\s+/g;
const IN_HIDDEN = 1;
const IN_SVG = 2;
/** Stack marker: the end of a block element, where words break. */
const BLOCK_END = null;

/** Code units `\s` matches (ECMAScript WhiteSpace and LineTerminator), as a lookup. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * `raw.replace(/\s+/g, ' ')`, without the regular expression for the two common cases: text
 * whose only whitespace is single spaces (returned as is) and whitespace-only text (`' '`).
 */
function collapseSpaces(raw: string): string {
  let clean = true;
  let allSpace = true;
  let prevSpace = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (isSpace(c)) {
      if (c !== 0x20 || prevSpace) clean = false;
      prevSpace = true;
    } else {
      allSpace = false;
      prevSpace = false;
    }
  }
  if (clean) return raw;
  if (allSpace) return ' ';
  return raw.replace(WHITESPACE, ' ');
}

function collapse(s: string, max: number): string {
  return cutAt(s.replace(WHITESPACE, ' ').trim(), max);
}

/** `s` cut to at most `max` code units without splitting a surrogate pair. */
function cutAt(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function textOf(node: DomNode): string {
  let out = '';
  for (const child of node.children ?? []) if (child.type === 'text') out += child.data ?? '';
  return out;
}

function relHas(rel: string | undefined, token: string): boolean {
  return rel !== undefined && rel.toLowerCase().split(/\s+/).includes(token);
}

/** Accumulates visible text with single spaces, stopping at a cap. */
class TextSink {
  private readonly parts: string[] = [];
  private length = 0;
  private endsWithSpace = true;
  truncated = false;

  constructor(private readonly max: number) {}

  add(raw: string): void {
    if (this.truncated) return;
    let s = collapseSpaces(raw);
    if (s === '' || (s === ' ' && this.endsWithSpace)) return;
    if (this.endsWithSpace && s.charCodeAt(0) === 32) s = s.slice(1);
    this.push(s);
  }

  /** A word break (block boundary). */
  break(): void {
    if (!this.endsWithSpace && !this.truncated) this.push(' ');
  }

  private push(s: string): void {
    this.parts.push(s);
    this.length += s.length;
    this.endsWithSpace = s.charCodeAt(s.length - 1) === 32;
    if (this.length > this.max) this.truncated = true;
  }

  text(): string {
    const all = this.parts.join('').trim();
    return this.truncated ? cutAt(all, this.max).trimEnd() : all;
  }
}

/**
 * Walks a parsed document once, depth-first in document order, with an explicit stack (a
 * 10 MB page of nested `<div>`s would overflow recursion), and collects the title, meta
 * description and robots, language hints, base and canonical hrefs, links, and the visible
 * text: everything outside {@link HIDDEN} subtrees (scripts, styles, navigation, header,
 * footer, asides, …), with block elements breaking words.
 */
export function walkDocument(root: DomNode, limits: WalkLimits): DocumentFacts {
  const facts: DocumentFacts = {
    title: '',
    description: '',
    text: '',
    textTruncated: false,
    htmlLang: null,
    metaLanguage: null,
    metaRobots: [],
    baseHref: null,
    canonicalHref: null,
    links: [],
    linksTruncated: false,
  };
  let haveTitle = false;
  let ogDescription = '';
  const sink = new TextSink(limits.maxTextChars);
  const nodes: Array<DomNode | typeof BLOCK_END> = [root];
  const flags: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const flag = flags.pop() ?? 0;
    if (node === BLOCK_END) {
      if (!(flag & IN_HIDDEN)) sink.break();
      continue;
    }
    if (node === undefined) break;
    if (node.type === 'text') {
      if (!(flag & IN_HIDDEN)) sink.add(node.data ?? '');
      continue;
    }
    const name = node.name;
    const attribs = node.attribs;
    let childFlag = flag;
    if (name !== undefined && attribs !== undefined) {
      switch (name) {
        case 'a':
        case 'area':
          if (attribs.href !== undefined) {
            if (facts.links.length < limits.maxLinks) {
              facts.links.push({
                href: attribs.href.trim(),
                nofollow: relHas(attribs.rel, 'nofollow'),
              });
            } else facts.linksTruncated = true;
          }
          break;
        case 'title':
          if (!haveTitle && !(flag & IN_SVG)) {
            haveTitle = true;
            facts.title = collapse(textOf(node), limits.maxFieldChars);
          }
          break;
        case 'meta':
          readMeta(attribs, facts, limits);
          if ((attribs.property ?? '').toLowerCase() === 'og:description' && !ogDescription) {
            ogDescription = collapse(attribs.content ?? '', limits.maxFieldChars);
          }
          break;
        case 'base':
          if (facts.baseHref === null && attribs.href !== undefined)
            facts.baseHref = attribs.href.trim();
          break;
        case 'link':
          if (
            facts.canonicalHref === null &&
            attribs.href !== undefined &&
            relHas(attribs.rel, 'canonical')
          ) {
            facts.canonicalHref = attribs.href.trim();
          }
          break;
        case 'html':
          facts.htmlLang ??= attribs.lang ?? attribs['xml:lang'] ?? null;
          break;
        case 'svg':
          childFlag |= IN_SVG;
          break;
        default:
      }
      if (HIDDEN.has(name)) childFlag |= IN_HIDDEN;
      if (!INLINE.has(name)) {
        if (!(flag & IN_HIDDEN)) sink.break();
        nodes.push(BLOCK_END);
        flags.push(flag);
      }
    }
    const children = node.children;
    if (children === undefined) continue;
    for (let i = children.length - 1; i >= 0; i--) {
      nodes.push(children[i]!);
      flags.push(childFlag);
    }
  }
  facts.description ||= ogDescription;
  facts.text = sink.text();
  facts.textTruncated = sink.truncated;
  return facts;
}

function readMeta(attribs: Record<string, string>, facts: DocumentFacts, limits: WalkLimits): void {
  const name = (attribs.name ?? '').trim().toLowerCase();
  const content = attribs.content;
  if (content === undefined) return;
  if (name === 'robots' || (limits.productToken !== null && name === limits.productToken)) {
    facts.metaRobots.push(content);
  } else if (name === 'description' && facts.description === '') {
    facts.description = collapse(content, limits.maxFieldChars);
  } else if ((attribs['http-equiv'] ?? '').toLowerCase() === 'content-language') {
    facts.metaLanguage ??= content;
  }
}
