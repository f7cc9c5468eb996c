import type { EntryCollector } from './collect-entries';
import { createTextSitemapReader } from './read-text-sitemap';
import { createXmlSitemapReader } from './read-xml-sitemap';
import type { SitemapReader } from './sitemap-reader.types';

/** Whitespace (and stray byte-order marks) that may precede the first real character. */
const LEADING_SPACE = /^[\s\uFEFF]+/;

/**
 * A reader that picks the format from the first non-blank character: `<` means XML, anything
 * else a plain-text sitemap. Leading blanks are dropped before the XML parser sees them, as
 * an `<?xml` declaration after a stray newline is common and would otherwise be an error.
 */
export function createSitemapReader(collector: EntryCollector): SitemapReader {
  let chosen: SitemapReader | null = null;

  return {
    push(text) {
      if (chosen !== null) return chosen.push(text);
      const rest = text.replace(LEADING_SPACE, '');
      if (rest === '') return true;
      if (rest.startsWith('<')) {
        chosen = createXmlSitemapReader(collector);
      } else {
        collector.kind = 'text';
        chosen = createTextSitemapReader(collector);
      }
      return chosen.push(rest);
    },
    end() {
      if (chosen === null) collector.error('empty sitemap');
      else chosen.end();
    },
    abort() {
      chosen?.abort();
    },
  };
}
