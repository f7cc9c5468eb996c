/**
 * The HTML elements extract-html.ts tells apart, with their properties as bits: which subtrees
 * hold no main text, which elements do not break words, and htmlparser2's Parser tree rules
 * (void elements, raw text, foreign content, implied closes). Built once, at load.
 */

// Element properties, as bits.
/** Subtree whose text is not the page's main text (boilerplate, code, non-rendered). */
export const HIDDEN = 1;
/** Phrasing element that does not break words: `foo<b>bar</b>` reads `foobar`. */
export const INLINE = 2;
/** No content and no end tag. */
export const VOID = 4;
/** The tokenizer reads its content as text up to its end tag (unless written self-closing). */
export const RAW_TEXT = 8;
/** Opens foreign content (SVG, MathML), where `<x/>` closes itself. */
export const FOREIGN = 16;
/** HTML integration point: HTML again inside foreign content. */
export const INTEGRATION = 32;
/** Attributes are read (links, metadata). */
export const READ_ATTRIBUTES = 64;

/** An element's properties (the bits above) and the open elements its start tag closes. */
export interface TagInfo {
  bits: number;
  /** htmlparser2's `openImpliesClose`: open elements of these names on top are closed first. */
  closes: ReadonlySet<string> | null;
}

const table = new Map<string, TagInfo>();
/** An element not in the table: no properties. */
export const UNKNOWN_TAG: TagInfo = { bits: 0, closes: null };

function tag(names: readonly string[], bits: number): void {
  for (const name of names) {
    const info = table.get(name);
    if (info) info.bits |= bits;
    else table.set(name, { bits, closes: null });
  }
}

function impliesClose(names: readonly string[], closes: readonly string[]): void {
  const set = new Set(closes);
  for (const name of names) {
    tag([name], 0);
    table.get(name)!.closes = set;
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

/** Every element with a property or a tree rule, by lowercase name. */
export const TAGS: ReadonlyMap<string, TagInfo> = table;
