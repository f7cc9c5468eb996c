/**
 * Deepest element nesting handed to the HTML parser. htmlparser2 keeps its open-element stack
 * with `Array#unshift`, so each tag costs O(depth) and a page of 2 million unclosed `<div>`s
 * would take hours; browsers cap the depth too (Blink at 512).
 */
export const MAX_NESTING_DEPTH = 256;

/**
 * Most start tags handed to the HTML parser. Each element costs a few hundred bytes of DOM:
 * 10 MB of `<p>` (3.5 million elements) would take about 1 GB and seconds to build, while
 * 500,000 elements is several times what a real 10 MB page has, and the text and link caps
 * are reached long before.
 */
export const MAX_ELEMENTS = 500_000;

/** htmlparser2's `openImpliesClose`: opening the key closes these if one is the current element. */
const P = new Set(['p']);
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const DD_DT = new Set(['dd', 'dt']);
const RT_RP = new Set(['rt', 'rp']);
const TABLE_SECTION = new Set(['thead', 'tbody']);
const IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map(
    (n): [string, Set<string>] => [n, FORM],
  ),
  ...['dd', 'dt'].map((n): [string, Set<string>] => [n, DD_DT]),
  ...['rt', 'rp'].map((n): [string, Set<string>] => [n, RT_RP]),
  ...['tbody', 'tfoot'].map((n): [string, Set<string>] => [n, TABLE_SECTION]),
  ...[
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
  ].map((n): [string, Set<string>] => [n, P]),
]);
const VOID = new Set([
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
]);
/** Elements whose content is raw text up to their end tag: no markup inside. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp']);
/** The end tag of each raw-text element (htmlparser2 needs a space, `/` or `>` after the name). */
const END_TAGS = new Map([...RAW_TEXT].map((n) => [n, new RegExp(`</${n}(?=[\\s/>])`, 'gi')]));
const FOREIGN = new Set(['math', 'svg']);
const INTEGRATION = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignobject',
  'desc',
  'title',
]);

const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQUALS = 0x3d;

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

/** Limits of {@link boundMarkup}. */
export interface MarkupBounds {
  /** Deepest element nesting (default {@link MAX_NESTING_DEPTH}). */
  maxDepth?: number;
  /** Most start tags; the document is cut before the next one (default {@link MAX_ELEMENTS}). */
  maxElements?: number;
}

/** Outcome of {@link boundMarkup}. */
export interface BoundedMarkup {
  /** The HTML to parse: the input itself when it was within bounds. */
  html: string;
  /** Start and end tags removed (each replaced by a space) to stay within the depth cap. */
  droppedTags: number;
  /** The document was cut at its `maxElements + 1`-th start tag. */
  truncated: boolean;
}

/**
 * Keeps a document within what htmlparser2 parses in bounded time and memory: at most
 * `maxElements` start tags (the rest of the document is dropped), nested at most `maxDepth`
 * deep.
 *
 * A linear pre-scan
 * replays htmlparser2's own stack rules (void elements, raw-text elements, implied closes,
 * self-closing tags in SVG/MathML, end tags that close everything above their element) and,
 * while the stack is full, removes further start tags (and the end tags that match them,
 * innermost first), keeping their content. A nested `<a>` at the cap closes the open one
 * first, as browsers do, so unclosed links are all kept. A page within bounds — almost every
 * page — comes back unchanged (the same string). About 0.3 ms per 80 KB.
 *
 * @param html the decoded document
 */
export function boundMarkup(html: string, bounds: MarkupBounds = {}): BoundedMarkup {
  const maxDepth = bounds.maxDepth ?? MAX_NESTING_DEPTH;
  const maxElements = bounds.maxElements ?? MAX_ELEMENTS;
  let len = html.length;
  let truncated = false;
  let elements = 0;
  const stack: string[] = [];
  const openCount = new Map<string, number>();
  const droppedOpen = new Map<string, number>();
  /** htmlparser2's `foreignContext` (top last): self-closing tags close inside SVG/MathML. */
  const foreign: boolean[] = [];
  /** Edits as [start, end, replacement], in document order. */
  const edits: Array<[number, number, string]> = [];

  const push = (name: string): void => {
    stack.push(name);
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
  };
  const pop = (): string | undefined => {
    const name = stack.pop();
    if (name !== undefined) openCount.set(name, (openCount.get(name) ?? 1) - 1);
    return name;
  };
  const popThrough = (name: string): void => {
    while (stack.length > 0 && pop() !== name);
  };

  let pos = 0;
  while (pos < len) {
    const lt = html.indexOf('<', pos);
    if (lt < 0) break;
    const c1 = html.charCodeAt(lt + 1);
    if (c1 === BANG) {
      const isComment = html.startsWith('<!--', lt);
      const close = isComment ? html.indexOf('-->', lt + 4) : html.indexOf('>', lt + 2);
      pos = close < 0 ? len : close + (isComment ? 3 : 1);
      continue;
    }
    if (c1 === QUESTION) {
      const close = html.indexOf('>', lt + 2);
      pos = close < 0 ? len : close + 1;
      continue;
    }
    const closing = c1 === SLASH;
    const nameStart = closing ? lt + 2 : lt + 1;
    if (!isLetter(html.charCodeAt(nameStart))) {
      pos = lt + 1;
      continue;
    }
    if (!closing && ++elements > maxElements) {
      len = lt;
      truncated = true;
      break;
    }
    let i = nameStart + 1;
    for (; i < len; i++) {
      const c = html.charCodeAt(i);
      if (isSpace(c) || c === SLASH || c === GT) break;
    }
    const name = html.slice(nameStart, i).toLowerCase();
    // The tag's end: the first `>` outside a quoted attribute value.
    let quote = 0;
    let prev = 0;
    for (; i < len; i++) {
      const c = html.charCodeAt(i);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if ((c === 0x22 || c === 0x27) && prev === EQUALS) quote = c;
      else if (c === GT) break;
      if (!isSpace(c)) prev = c;
    }
    const end = i < len ? i + 1 : len;
    const selfClosing = i < len && html.charCodeAt(i - 1) === SLASH;
    pos = end;

    if (closing) {
      if (FOREIGN.has(name) || INTEGRATION.has(name)) foreign.pop();
      if (VOID.has(name)) continue;
      const dropped = droppedOpen.get(name) ?? 0;
      if (dropped > 0) {
        droppedOpen.set(name, dropped - 1);
        edits.push([lt, end, ' ']);
      } else if ((openCount.get(name) ?? 0) > 0) popThrough(name);
      continue;
    }

    if (RAW_TEXT.has(name)) {
      // Raw text in any context (htmlparser2's tokenizer knows no foreign content): skip it.
      // Its end tag then closes nothing, as the element was never pushed.
      const close = indexOfEndTag(html, name, end);
      pos = close < 0 ? len : close;
      continue;
    }
    const closes = IMPLIES_CLOSE.get(name);
    if (closes) {
      while (stack.length > 0 && closes.has(stack[stack.length - 1]!)) pop();
    }
    if (VOID.has(name)) continue;
    if (selfClosing && foreign.length > 0 && foreign[foreign.length - 1]) continue;
    if (stack.length >= maxDepth) {
      if (name === 'a' && (openCount.get('a') ?? 0) > 0) {
        edits.push([lt, lt, '</a>']);
        popThrough('a');
      } else {
        droppedOpen.set(name, (droppedOpen.get(name) ?? 0) + 1);
        edits.push([lt, end, ' ']);
        continue;
      }
    }
    push(name);
    if (FOREIGN.has(name)) foreign.push(true);
    else if (INTEGRATION.has(name)) foreign.push(false);
  }

  if (edits.length === 0) {
    return { html: truncated ? html.slice(0, len) : html, droppedTags: 0, truncated };
  }
  const parts: string[] = [];
  let at = 0;
  let droppedTags = 0;
  for (const [start, stop, replacement] of edits) {
    parts.push(html.slice(at, start), replacement);
    at = stop;
    if (stop > start) droppedTags++;
  }
  parts.push(html.slice(at, len));
  return { html: parts.join(''), droppedTags, truncated };
}

/** Index of the `</name` (any case) that ends a raw-text element, searching from `from`. */
function indexOfEndTag(html: string, name: string, from: number): number {
  const re = END_TAGS.get(name);
  if (re === undefined) return -1;
  re.lastIndex = from;
  return re.exec(html)?.index ?? -1;
}
