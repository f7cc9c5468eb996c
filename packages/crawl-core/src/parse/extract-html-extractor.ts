import type { Tokenizer, TokenizerCallbacks } from 'htmlparser2';
import type { DocumentFacts, ExtractLimits } from './extract-html';
import { ATTRIBUTE_SLOTS, ATTRIBUTE_SLOT_COUNT, readAttributes } from './extract-html-attributes';
import {
  FOREIGN,
  HIDDEN,
  INLINE,
  INTEGRATION,
  RAW_TEXT,
  READ_ATTRIBUTES,
  TAGS,
  UNKNOWN_TAG,
  VOID,
  type TagInfo,
} from './extract-html-tags';
import { collapse, TextSink, UNCOLLAPSED } from './extract-html-text';

// Context of an element's content, as bits.
const IN_HIDDEN = 1;
const IN_SVG = 2;

/**
 * extractHtml's one pass (extract-html.ts): the tokenizer's callbacks, the tree rules, the stack
 * of open elements, and what is collected. One per document; `finish()` returns the facts.
 */
export class Extractor implements TokenizerCallbacks {
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
  private readonly attributes = new Array<string | undefined>(ATTRIBUTE_SLOT_COUNT);
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
    private readonly maxDepth: number,
    private readonly maxElements: number,
  ) {
    this.sink = new TextSink(limits.maxTextChars);
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
    if (info.bits & READ_ATTRIBUTES) {
      const og = readAttributes(
        name,
        this.attributes,
        this.facts,
        this.limits,
        !this.ogDescription,
      );
      if (og !== null) this.ogDescription = og;
    }
    if (!(info.bits & INLINE) && !(parent & IN_HIDDEN)) this.sink.break();
    let context = parent;
    if (info.bits & HIDDEN) context |= IN_HIDDEN;
    if (name === 'svg') context |= IN_SVG;
    return context;
  }
}
