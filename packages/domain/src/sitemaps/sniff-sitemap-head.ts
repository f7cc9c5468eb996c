import { constants, gunzipSync } from 'node:zlib';
import { isGzip } from './read-body-chunks';

/**
 * What the first bytes of a body look like: a sitemap root (`urlset`, `sitemapindex`), HTML,
 * another XML root, XML whose root is not in the head yet, URL lines, nothing, or unknown.
 */
export type HeadKind =
  | 'urlset'
  | 'sitemapindex'
  | 'html'
  | 'xml-other'
  | 'xml-no-root'
  | 'url-lines'
  | 'empty'
  | 'unknown';

/** Compressed bytes inflated to sniff a gzip head: at most ~1 MiB comes out of 1 KiB. */
const GZIP_HEAD_BYTES = 1024;
/** Characters of the head examined. */
const HEAD_MAX_CHARS = 64 * 1024;

/** Comments, which may hide tag-like text. */
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
/** The first start tag: `<` not followed by `?`, `!` or `/`; group 1 is the local name. */
const FIRST_TAG = /<(?![?!/])(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/;
/** An absolute http(s) URL alone on the first line. */
const URL_LINE = /^https?:\/\/[^\s<>"]+$/i;

/**
 * Classifies the first bytes of a body (a gzip head is partly inflated first, synchronously
 * and bounded). Never throws.
 */
export function sniffSitemapHead(head: Uint8Array): HeadKind {
  const bytes = isGzip(head) ? inflateHead(head) : head;
  if (bytes === null) return 'unknown';
  const text = new TextDecoder('utf-8')
    .decode(bytes.subarray(0, HEAD_MAX_CHARS))
    .replace(/^[\s\uFEFF]+/, '');
  if (text === '') return 'empty';
  if (text.startsWith('<')) {
    const tag = FIRST_TAG.exec(text.replace(COMMENT, ''));
    if (tag === null) return /^<!doctype\s+html/i.test(text) ? 'html' : 'xml-no-root';
    const name = tag[1] ?? '';
    if (name === 'urlset' || name === 'sitemapindex') return name;
    return name.toLowerCase() === 'html' ? 'html' : 'xml-other';
  }
  const firstLine = text.split(/\r\n?|\n/, 1)[0] ?? '';
  return URL_LINE.test(firstLine.trim()) ? 'url-lines' : 'unknown';
}

/** The first inflated bytes of a gzip head (a cut stream is fine), or null when corrupt. */
function inflateHead(head: Uint8Array): Uint8Array | null {
  try {
    return gunzipSync(head.subarray(0, GZIP_HEAD_BYTES), {
      finishFlush: constants.Z_SYNC_FLUSH,
      maxOutputLength: 2 * 1024 * 1024,
    });
  } catch {
    return null;
  }
}
