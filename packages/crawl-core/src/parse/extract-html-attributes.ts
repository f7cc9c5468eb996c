import type { DocumentFacts, ExtractLimits } from './extract-html';
import { collapse } from './extract-html-text';

/** The attributes read (of `READ_ATTRIBUTES` elements), by slot. */
const HREF = 0;
const REL = 1;
const NAME = 2;
const CONTENT = 3;
const PROPERTY = 4;
const HTTP_EQUIV = 5;
const LANG = 6;
const XML_LANG = 7;

/** Slot of each attribute extract-html.ts reads, by lowercase name; the others are skipped. */
export const ATTRIBUTE_SLOTS: ReadonlyMap<string, number> = new Map([
  ['href', HREF],
  ['rel', REL],
  ['name', NAME],
  ['content', CONTENT],
  ['property', PROPERTY],
  ['http-equiv', HTTP_EQUIV],
  ['lang', LANG],
  ['xml:lang', XML_LANG],
]);

/** How many slots {@link ATTRIBUTE_SLOTS} has. */
export const ATTRIBUTE_SLOT_COUNT = 8;

function relHas(rel: string | undefined, token: string): boolean {
  return rel !== undefined && rel.toLowerCase().split(/\s+/).includes(token);
}

/**
 * Records what an element's attributes (by slot, as written) tell: a link (`<a>`, `<area>`),
 * meta robots, description and content language, `<base href>`, the canonical link, the
 * document's language. Returns the element's `og:description` (collapsed) when `wantOg` and it
 * has one, else null: the meta description wins over it, wherever it comes.
 */
export function readAttributes(
  name: string,
  attributes: ReadonlyArray<string | undefined>,
  facts: DocumentFacts,
  limits: ExtractLimits,
  wantOg: boolean,
): string | null {
  const href = attributes[HREF];
  switch (name) {
    case 'a':
    case 'area':
      if (href !== undefined) {
        if (facts.links.length < limits.maxLinks) {
          facts.links.push({ href: href.trim(), nofollow: relHas(attributes[REL], 'nofollow') });
        } else facts.linksTruncated = true;
      }
      break;
    case 'meta':
      return readMeta(attributes, facts, limits, wantOg);
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
  return null;
}

function readMeta(
  attributes: ReadonlyArray<string | undefined>,
  facts: DocumentFacts,
  limits: ExtractLimits,
  wantOg: boolean,
): string | null {
  const maxFieldChars = limits.maxFieldChars;
  const content = attributes[CONTENT];
  if (content !== undefined) {
    const name = (attributes[NAME] ?? '').trim().toLowerCase();
    const productToken = limits.productToken;
    if (name === 'robots' || (productToken !== null && name === productToken)) {
      facts.metaRobots.push(content);
    } else if (name === 'description' && facts.description === '') {
      facts.description = collapse(content, maxFieldChars);
    } else if ((attributes[HTTP_EQUIV] ?? '').toLowerCase() === 'content-language') {
      facts.metaLanguage ??= content;
    }
  }
  if ((attributes[PROPERTY] ?? '').toLowerCase() === 'og:description' && wantOg) {
    return collapse(content ?? '', maxFieldChars);
  }
  return null;
}
