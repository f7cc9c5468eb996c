import { SaxesParser } from 'saxes';
import { quote } from './build-entry';
import type { EntryCollector } from './collect-entries';
import type { RawSitemapEntry } from './parse-sitemap.types';
import type { SitemapReader } from './sitemap-reader.types';

/**
 * Most characters fed to the parser between two tags. saxes buffers text, CDATA, comments,
 * the DTD and entity names until the next tag; past this the document is not a sitemap
 * and reading stops, so a 50 MB text node or DTD cannot pile up in memory.
 */
export const XML_MAX_RUN_CHARS = 1024 * 1024;

/**
 * Deepest element nesting read. A sitemap is 3 levels deep (5 with extensions such as
 * video); past this the document is hostile (the parser keeps one object per open tag).
 */
export const XML_MAX_DEPTH = 32;

/** Characters kept of one field's text (longer values are invalid anyway). */
const FIELD_MAX_CHARS = 8 * 1024;

type Field = keyof RawSitemapEntry;
const FIELDS: ReadonlySet<string> = new Set<Field>(['loc', 'lastmod', 'changefreq', 'priority']);

/**
 * A reader for XML sitemaps (urlset or sitemapindex) on the streaming, non-validating saxes
 * parser. Entities: only the five XML ones and character references are decoded; a DTD is
 * skipped, never expanded, so entity bombs cost nothing and an undeclared (or DTD-declared)
 * entity is a well-formedness error. Element names are case-sensitive as the protocol says;
 * namespaces are tolerated by matching local names whose prefix equals the root's (so
 * `<urlset>`, `<urlset xmlns="…">` and `<sm:urlset xmlns:sm="…">` all work, and extension
 * elements such as `<image:loc>` are ignored). The first error stops parsing: entries
 * completed before it are kept, and so is the entry open at the error when its `<loc>` was
 * already closed.
 */
export function createXmlSitemapReader(collector: EntryCollector): SitemapReader {
  const parser = new SaxesParser({ position: true });
  let stopped = false;
  let depth = 0;
  let rootPrefix = '';
  let itemName = '';
  let item: RawSitemapEntry | null = null;
  let field: Field | null = null;
  let text = '';
  let run = 0;

  const stop = (): void => {
    stopped = true;
  };
  const fail = (message: string): void => {
    if (stopped) return;
    collector.error(`xml: ${message}`);
    stop();
  };
  const flushOpenItem = (): void => {
    if (item === null || item.loc === null || collector.full) return;
    collector.error(`unfinished entry kept (its <loc> was complete): ${quote(item.loc)}`);
    collector.add(item);
    item = null;
  };

  parser.on('opentag', (tag) => {
    if (stopped) return;
    run = 0;
    depth++;
    const { prefix, local } = splitName(tag.name);
    if (depth > XML_MAX_DEPTH) {
      fail(`elements nested deeper than ${XML_MAX_DEPTH}`);
    } else if (depth === 1) {
      rootPrefix = prefix;
      if (local === 'urlset' || local === 'sitemapindex') {
        collector.kind = local;
        itemName = local === 'urlset' ? 'url' : 'sitemap';
      } else {
        fail(`not a sitemap: root element <${tag.name}>`);
      }
    } else if (depth === 2 && prefix === rootPrefix && local === itemName) {
      item = { loc: null, lastmod: null, changefreq: null, priority: null };
    } else if (depth === 3 && item !== null && prefix === rootPrefix && FIELDS.has(local)) {
      field = local as Field;
      text = '';
    }
  });

  const onText = (t: string): void => {
    if (stopped || field === null || depth !== 3 || text.length > FIELD_MAX_CHARS) return;
    text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);

  parser.on('closetag', () => {
    if (stopped) return;
    run = 0;
    if (depth === 3 && field !== null && item !== null) {
      if (item[field] === null) item[field] = text;
      else collector.error(`duplicate <${field}> ignored: ${quote(text)}`);
      field = null;
    } else if (depth === 2 && item !== null) {
      if (!collector.add(item)) stop();
      item = null;
    }
    depth--;
  });

  parser.on('error', (err: Error) => fail(err.message));

  const guarded = (work: () => void): void => {
    try {
      work();
    } catch (err) {
      // saxes reports errors through the handler; this only guards against its internal
      // invariant checks, so bad input can never throw out of parseSitemap.
      fail(err instanceof Error ? err.message : 'parser failure');
    }
  };

  return {
    push(chunk) {
      if (stopped) return false;
      run += chunk.length;
      guarded(() => parser.write(chunk));
      if (!stopped && run > XML_MAX_RUN_CHARS) {
        fail(`more than ${XML_MAX_RUN_CHARS} chars without a tag`);
      }
      if (stopped) flushOpenItem();
      return !stopped;
    },
    end() {
      if (!stopped) guarded(() => parser.close());
      flushOpenItem();
      stop();
    },
    abort() {
      flushOpenItem();
      stop();
    },
  };
}

/** `sm:url` → {prefix: 'sm', local: 'url'}; `url` → {prefix: '', local: 'url'}. */
function splitName(name: string): { prefix: string; local: string } {
  const colon = name.indexOf(':');
  if (colon === -1) return { prefix: '', local: name };
  return { prefix: name.slice(0, colon), local: name.slice(colon + 1) };
}
