import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

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

// Element properties, as bits.
/** Subtree whose text is not the page's main text (boilerplate, code, non-rendered). */
const HIDDEN = 1;
/** Phrasing element that does not break words: `foo<b>bar</b>` reads `foobar`. */
const INLINE = 2;
/** No content and no end tag. */
const VOID = 4;
/** The tokenizer reads its content as text up to its end tag (unless written self-closing). */
const RAW_TEXT = 8;
/** Opens foreign content (SVG, MathML), where `<x/>` closes itself. */
const FOREIGN = 16;
/** HTML integration point: HTML again inside foreign content. */
const INTEGRATION = 32;
/** Attributes are read (links, metadata). */
const READ_ATTRIBUTES = 64;

// Context of an element's content, as bits.
const IN_HIDDEN = 1;
const IN_SVG = 2;

interface TagInfo {
  bits: number;
  /** htmlparser2's `openImpliesClose`: open elements of these names on top are closed first. */
  closes: ReadonlySet<string> | null;
}

const TAGS = new Map<string, TagInfo>();
const UNKNOWN_TAG: TagInfo = { bits: 0, closes: null };

function tag(names: readonly string[], bits: number): void {
  for (const name of names) {
    const info = TAGS.get(name);
    if (info) info.bits |= bits;
    else TAGS.set(name, { bits, closes: null });
  }
}

function impliesClose(names: readonly string[], closes: readonly string[]): void {
  const set = new Set(closes);
  for (const name of names) {
    tag([name], 0);
    TAGS.get(name)!.closes = set;
  }
}

tag(
  [
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
  ],
  HIDDEN,
);
tag(
  [
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
  ],
  INLINE,
);
// The rest follows htmlparser2's Parser (its tree rules are what a DOM built with it has).
tag(
  [
    'area',
    'base',
    'basefont',
    'br',
    'col',
    'command',
    'embed',
    'frame',
    'hr',
    'img',
    'input',
    'isindex',
    'keygen',
    'link',
    'meta',
    'param',
    'source',
    'track',
    'wbr',
  ],
  VOID,
);
tag(['script', 'style', 'title', 'textarea', 'xmp'], RAW_TEXT);
tag(['math', 'svg'], FOREIGN);
tag(
  ['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title'],
  INTEGRATION,
);
tag(['a', 'area', 'meta', 'link', 'base', 'html'], READ_ATTRIBUTES);
impliesClose(['tr'], ['tr', 'th', 'td']);
impliesClose(['th'], ['th']);
impliesClose(['td'], ['thead', 'th', 'td']);
impliesClose(['body'], ['head', 'link', 'script']);
impliesClose(['li'], ['li']);
impliesClose(
  ['select', 'input', 'output', 'button', 'datalist', 'textarea'],
  ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'],
);
impliesClose(['option'], ['option']);
impliesClose(['optgroup'], ['optgroup', 'option']);
impliesClose(['dd', 'dt'], ['dd', 'dt']);
impliesClose(['rt', 'rp'], ['rt', 'rp']);
impliesClose(['tbody', 'tfoot'], ['thead', 'tbody']);
impliesClose(
  [
    'p',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'address',
    'article',
    'aside',
    'blockquote',
    'details',
    'div',
    'dl',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'header',
    'hr',
    'main',
    'nav',
    'ol',
    'pre',
    'section',
    'table',
    'ul',
  ],
  ['p'],
);

/** The attributes read (of {@link READ_ATTRIBUTES} elements), by slot. */
const HREF = 0;
const REL = 1;
const NAME = 2;
const CONTENT = 3;
const PROPERTY = 4;
const HTTP_EQUIV = 5;
const LANG = 6;
const XML_LANG = 7;
const ATTRIBUTE_SLOTS = new Map([
  ['href', HREF],
  ['rel', REL],
  ['name', NAME],
  ['content', CONTENT],
  ['property', PROPERTY],
  ['http-equiv', HTTP_EQUIV],
  ['lang', LANG],
  ['xml:lang', XML_LANG],
]);

/**
 * The whitespace runs (`\s+`) that are not already a single space: replacing these with a
 * space collapses whitespace as `s.replace(/\s+/g, ' ')` does, with far fewer matches in
 * ordinary text.
 */
const UNCOLLAPSED = /[^\S ]\s*| \s+/g;

/** `s` with whitespace collapsed and trimmed, at most `max` code units. */
function collapse(s: string, max: number): string {
  return cutAt(s.replace(UNCOLLAPSED, ' ').trim(), max);
}

/** `s` cut to at most `max` code units without splitting a surrogate pair. */
function cutAt(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function relHas(rel: string | undefined, token: string): boolean {
  return rel !== undefined && rel.toLowerCase().split(/\s+/).includes(token);
}

/**
 * Accumulates visible text, to be read with every whitespace run collapsed to one space and
 * the ends trimmed, stopping at a cap. Chunks are kept as they come and collapsed with one
 * regular expression when the text is read, or when the raw length has grown by the cap since
 * the last look (to tell whether the collapsed text is over it yet): linear in the input.
 */
class TextSink {
  private parts: string[] = [];
  private rawLength = 0;
  /** Raw length at which to collapse what there is and compare it with the cap. */
  private nextCheck: number;
  truncated = false;

  constructor(private readonly max: number) {
    this.nextCheck = max;
  }

  add(raw: string): void {
    if (this.truncated) return;
    this.parts.push(raw);
    this.rawLength += raw.length;
    if (this.rawLength > this.nextCheck) this.check();
  }

  /** A word break (block boundary). */
  break(): void {
    this.add(' ');
  }

  /** Collapses the text so far, and compares its length with the cap. */
  private check(): void {
    // Leading whitespace never counts; a trailing space does (as part of the text so far).
    const collapsed = this.parts.join('').replace(UNCOLLAPSED, ' ').trimStart();
    this.parts = [collapsed];
    this.rawLength = collapsed.length;
    this.nextCheck = collapsed.length + this.max;
    if (collapsed.length > this.max) this.truncated = true;
  }

  text(): string {
    if (!this.truncated) this.check();
    const all = (this.parts[0] ?? '').trimEnd();
    return this.truncated ? cutAt(all, this.max).trimEnd() : all;
  }
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
  const extractor = new Extractor(html, limits);
  const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: true }, extractor);
  extractor.tokenizer = tokenizer;
  tokenizer.write(html);
  tokenizer.end();
  return extractor.finish();
}

/** The tokenizer's callbacks: the tree rules, the stack, and what is collected. */
class Extractor implements TokenizerCallbacks {
  tokenizer: Tokenizer | null = null;
  private readonly facts: DocumentFacts = {
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
    droppedTags: 0,
    htmlTruncated: false,
    elements: 0,
    deepest: 0,
  };
  private readonly sink: TextSink;
  private readonly maxDepth: number;
  private readonly maxElements: number;
  private startTags = 0;
  private stopped = false;

  // The stack of open elements (top last): name, properties, context of its content.
  private readonly names: string[] = [];
  private readonly bits: number[] = [];
  private readonly contexts: number[] = [];
  /** Open elements by name, so an end tag finds its element in O(1). */
  private readonly open = new Map<string, number>();
  /** Start tags left out at the cap, by name, whose end tags are still to come. */
  private readonly droppedOpen = new Map<string, number>();
  /** htmlparser2's `foreignContext` (top last): whether `<x/>` closes itself here. */
  private readonly foreign: boolean[] = [false];

  // The start tag being read.
  private tagName = '';
  private tagInfo: TagInfo = UNKNOWN_TAG;
  private readonly attributes: Array<string | undefined> = new Array<string | undefined>(8);
  /** Slot of the attribute being read, or -1 when it is not one we read. */
  private attributeSlot = -1;
  private attributeValue = '';

  private haveTitle = false;
  /** Stack index of the `<title>` whose text is the page title, or -1. */
  private titleIndex = -1;
  private titleText = '';
  /** Title length at which to collapse it and compare it with the field cap. */
  private titleCheck: number;
  /** The title has more than maxFieldChars collapsed characters: the rest is not needed. */
  private titleFull = false;
  private ogDescription = '';

  constructor(
    private readonly html: string,
    private readonly limits: ExtractLimits,
  ) {
    this.sink = new TextSink(limits.maxTextChars);
    this.maxDepth = limits.maxDepth ?? MAX_NESTING_DEPTH;
    this.maxElements = limits.maxElements ?? MAX_ELEMENTS;
    this.titleCheck = limits.maxFieldChars;
  }

  finish(): DocumentFacts {
    const facts = this.facts;
    // Everything still open closes at the end of the document (or where it was cut).
    while (this.names.length > 0) this.pop();
    facts.description ||= this.ogDescription;
    facts.text = this.sink.text();
    facts.textTruncated = this.sink.truncated;
    return facts;
  }

  // Tokenizer callbacks.

  onopentagname(start: number, endIndex: number): void {
    if (this.stopped) return;
    if (++this.startTags > this.maxElements) {
      this.facts.htmlTruncated = true;
      this.stopped = true;
      this.tokenizer?.pause();
      return;
    }
    const name = this.html.slice(start, endIndex).toLowerCase();
    const info = TAGS.get(name) ?? UNKNOWN_TAG;
    this.tagName = name;
    this.tagInfo = info;
    if (info.bits & READ_ATTRIBUTES) this.attributes.fill(undefined);
    this.attributeSlot = -1;
  }

  onattribname(start: number, endIndex: number): void {
    if (!(this.tagInfo.bits & READ_ATTRIBUTES) || this.stopped) return;
    const name = this.html.slice(start, endIndex).toLowerCase();
    this.attributeSlot = ATTRIBUTE_SLOTS.get(name) ?? -1;
    this.attributeValue = '';
  }

  onattribdata(start: number, endIndex: number): void {
    if (this.attributeSlot >= 0) this.attributeValue += this.html.slice(start, endIndex);
  }

  onattribentity(codepoint: number): void {
    if (this.attributeSlot >= 0) this.attributeValue += String.fromCodePoint(codepoint);
  }

  onattribend(): void {
    const slot = this.attributeSlot;
    if (slot < 0) return;
    // The first of repeated attributes wins, as in the DOM.
    if (this.attributes[slot] === undefined) this.attributes[slot] = this.attributeValue;
    this.attributeSlot = -1;
  }

  onopentagend(): void {
    this.startTag(false);
  }

  onselfclosingtag(): void {
    this.startTag(true);
  }

  onclosetag(start: number, endIndex: number): void {
    if (this.stopped) return;
    const name = this.html.slice(start, endIndex).toLowerCase();
    const dropped = this.droppedOpen.get(name);
    if (dropped !== undefined && dropped > 0) {
      this.droppedOpen.set(name, dropped - 1);
      this.facts.droppedTags++;
      this.addText(' ');
      return;
    }
    const info = TAGS.get(name) ?? UNKNOWN_TAG;
    if (info.bits & (FOREIGN | INTEGRATION)) this.foreign.pop();
    if (info.bits & VOID) {
      // `</br>` is read as `<br>`; other void end tags are ignored.
      if (name === 'br') this.voidElement(name, info);
      return;
    }
    if ((this.open.get(name) ?? 0) > 0) {
      while (this.names.length > 0 && this.pop() !== name);
    } else if (name === 'p') {
      // `</p>` with no open `<p>` is an empty paragraph.
      this.voidElement(name, info);
    }
  }

  ontext(start: number, endIndex: number): void {
    if (this.wantsText()) this.addText(this.html.slice(start, endIndex));
  }

  ontextentity(codepoint: number): void {
    if (this.wantsText()) this.addText(String.fromCodePoint(codepoint));
  }

  oncdata(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
  onend(): void {}

  // Tree rules.

  private context(): number {
    const top = this.names.length - 1;
    return top >= 0 ? this.contexts[top]! : 0;
  }

  /** Whether text here is read: visible text below the cap, or the page title's. */
  private wantsText(): boolean {
    if (this.stopped) return false;
    const top = this.names.length - 1;
    if (this.titleIndex >= 0 && this.titleIndex === top && !this.titleFull) return true;
    return !this.sink.truncated && (top < 0 || !(this.contexts[top]! & IN_HIDDEN));
  }

  private addText(s: string): void {
    const top = this.names.length - 1;
    if (this.titleIndex >= 0 && this.titleIndex === top) this.addTitle(s);
    if (top < 0 || !(this.contexts[top]! & IN_HIDDEN)) this.sink.add(s);
  }

  /**
   * Appends to the page title. Only its first maxFieldChars + 1 collapsed code units matter:
   * it is collapsed whenever it has grown by the cap, and no more is kept once it is longer.
   */
  private addTitle(s: string): void {
    const max = this.limits.maxFieldChars;
    for (let at = 0; at < s.length && !this.titleFull; at += max + 1) {
      this.titleText += at === 0 && s.length <= max + 1 ? s : s.slice(at, at + max + 1);
      if (this.titleText.length > this.titleCheck) {
        this.titleText = this.titleText.replace(UNCOLLAPSED, ' ').trimStart();
        this.titleCheck = this.titleText.length + max;
        this.titleFull = this.titleText.length > max;
      }
    }
  }

  /** A start tag has ended: `selfClosing` when written `<x/>`. */
  private startTag(selfClosing: boolean): void {
    if (this.stopped) return;
    const name = this.tagName;
    const info = this.tagInfo;
    this.attributeSlot = -1;
    const closes = info.closes;
    if (closes !== null) {
      while (this.names.length > 0 && closes.has(this.names[this.names.length - 1]!)) this.pop();
    }
    if (info.bits & VOID) {
      this.voidElement(name, info);
      return;
    }
    const foreign =
      info.bits & FOREIGN
        ? true
        : info.bits & INTEGRATION
          ? false
          : this.foreign[this.foreign.length - 1] === true;
    const closesItself = selfClosing && foreign;
    const rawText = (info.bits & RAW_TEXT) !== 0 && !selfClosing;
    if (this.names.length >= this.maxDepth && !closesItself && !rawText) {
      if (name === 'a' && (this.open.get('a') ?? 0) > 0) {
        while (this.names.length > 0 && this.pop() !== 'a');
      } else {
        this.droppedOpen.set(name, (this.droppedOpen.get(name) ?? 0) + 1);
        this.facts.droppedTags++;
        this.addText(' ');
        return;
      }
    }
    if (info.bits & (FOREIGN | INTEGRATION)) this.foreign.push(foreign);
    this.push(name, info);
    if (closesItself) this.pop();
  }

  /** An element that is opened and closed at once. */
  private voidElement(name: string, info: TagInfo): void {
    this.opened(name, info, this.context());
    if (!(info.bits & INLINE) && !(this.context() & IN_HIDDEN)) this.sink.break();
  }

  private push(name: string, info: TagInfo): void {
    const parent = this.context();
    const context = this.opened(name, info, parent);
    if (name === 'title' && !this.haveTitle && !(parent & IN_SVG)) {
      this.haveTitle = true;
      this.titleIndex = this.names.length;
    }
    this.names.push(name);
    this.bits.push(info.bits);
    this.contexts.push(context);
    this.open.set(name, (this.open.get(name) ?? 0) + 1);
    if (this.names.length > this.facts.deepest) this.facts.deepest = this.names.length;
  }

  /** Closes the top element; returns its name. */
  private pop(): string | undefined {
    const name = this.names.pop();
    const bits = this.bits.pop() ?? 0;
    this.contexts.pop();
    if (name === undefined) return undefined;
    this.open.set(name, (this.open.get(name) ?? 1) - 1);
    if (this.titleIndex === this.names.length) this.endTitle();
    if (!(bits & INLINE) && !(this.context() & IN_HIDDEN)) this.sink.break();
    return name;
  }

  private endTitle(): void {
    this.facts.title = collapse(this.titleText, this.limits.maxFieldChars);
    this.titleText = '';
    this.titleIndex = -1;
  }

  /** An element opens under `parent` (its context): returns the context of its content. */
  private opened(name: string, info: TagInfo, parent: number): number {
    this.facts.elements++;
    if (info.bits & READ_ATTRIBUTES) this.readAttributes(name);
    if (!(info.bits & INLINE) && !(parent & IN_HIDDEN)) this.sink.break();
    let context = parent;
    if (info.bits & HIDDEN) context |= IN_HIDDEN;
    if (name === 'svg') context |= IN_SVG;
    return context;
  }

  private readAttributes(name: string): void {
    const facts = this.facts;
    const attributes = this.attributes;
    const href = attributes[HREF];
    switch (name) {
      case 'a':
      case 'area':
        if (href !== undefined) {
          if (facts.links.length < this.limits.maxLinks) {
            facts.links.push({ href: href.trim(), nofollow: relHas(attributes[REL], 'nofollow') });
          } else facts.linksTruncated = true;
        }
        break;
      case 'meta':
        this.readMeta();
        break;
      case 'base':
        if (facts.baseHref === null && href !== undefined) facts.baseHref = href.trim();
        break;
      case 'link':
        if (
          facts.canonicalHref === null &&
          href !== undefined &&
          relHas(attributes[REL], 'canonical')
        ) {
          facts.canonicalHref = href.trim();
        }
        break;
      case 'html':
        facts.htmlLang ??= attributes[LANG] ?? attributes[XML_LANG] ?? null;
        break;
      default:
    }
  }

  private readMeta(): void {
    const facts = this.facts;
    const attributes = this.attributes;
    const maxFieldChars = this.limits.maxFieldChars;
    const content = attributes[CONTENT];
    if (content !== undefined) {
      const name = (attributes[NAME] ?? '').trim().toLowerCase();
      const productToken = this.limits.productToken;
      if (name === 'robots' || (productToken !== null && name === productToken)) {
        facts.metaRobots.push(content);
      } else if (name === 'description' && facts.description === '') {
        facts.description = collapse(content, maxFieldChars);
      } else if ((attributes[HTTP_EQUIV] ?? '').toLowerCase() === 'content-language') {
        facts.metaLanguage ??= content;
      }
    }
    if ((attributes[PROPERTY] ?? '').toLowerCase() === 'og:description' && !this.ogDescription) {
      this.ogDescription = collapse(content ?? '', maxFieldChars);
    }
  }
}
