import { quote } from './build-entry';
import type { EntryCollector } from './collect-entries';
import { LOC_MAX_CHARS } from './resolve-loc';
import type { SitemapReader } from './sitemap-reader.types';

/** A line is cut off past this many characters (no URL is that long), bounding memory. */
const LINE_MAX_CHARS = LOC_MAX_CHARS + 256;

/**
 * A reader for plain-text sitemaps: one URL per line (LF, CRLF or CR), blank lines ignored,
 * anything else reported and skipped. Holds at most one line of {@link LINE_MAX_CHARS}
 * characters, so a huge single line costs no memory.
 */
export function createTextSitemapReader(collector: EntryCollector): SitemapReader {
  let line = '';
  let overlong = false;
  let stopped = false;

  const finishLine = (): boolean => {
    if (overlong) {
      collector.error(`line longer than ${LINE_MAX_CHARS} chars skipped: ${quote(line)}`);
    } else if (line.trim() !== '') {
      if (!collector.add({ loc: line, lastmod: null, changefreq: null, priority: null })) {
        stopped = true;
      }
    }
    line = '';
    overlong = false;
    return !stopped;
  };

  const append = (piece: string): void => {
    if (overlong) return;
    line += piece;
    if (line.length > LINE_MAX_CHARS) {
      overlong = true;
      line = line.slice(0, 80);
    }
  };

  return {
    push(text) {
      if (stopped) return false;
      let start = 0;
      const breaks = /\r\n?|\n/g;
      for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
        append(text.slice(start, m.index));
        if (!finishLine()) return false;
        start = breaks.lastIndex;
      }
      append(text.slice(start));
      return true;
    },
    end() {
      if (!stopped) finishLine();
      stopped = true;
    },
    abort() {
      // The last line may be a cut URL: drop it (an overlong one is still worth reporting).
      if (!stopped && overlong) finishLine();
      stopped = true;
    },
  };
}
