/**
 * The links of an HTML page as the web wrote it, for the request log's `links` (option
 * `logLinks`): every `<a href>`, resolved against the page's `<base href>` (if any) and its URL.
 * The web writes its own HTML in a regular form (double or single quotes, `&amp;`-style
 * entities), so a pattern over the tags is exact here; it is no general HTML parser.
 */

const TAG = /<(a|base)\s[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(
        e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)),
      );
    return ENTITIES[e.toLowerCase()] ?? all;
  });
}

function resolve(href: string, base: string): string | null {
  try {
    return new URL(href, base).href;
  } catch {
    return null;
  }
}

/**
 * The absolute URLs of a page's `<a href>` links in document order (duplicates kept), not
 * canonicalized: fragments, tracking parameters and `mailto:` / `javascript:` links stay as
 * written, so a crawler's own normalizer decides what they are.
 * @param pageUrl the absolute URL the page was served at.
 */
export function pageLinks(html: string, pageUrl: string): string[] {
  let base = pageUrl;
  const out: string[] = [];
  for (const m of html.matchAll(TAG)) {
    const href = decodeEntities(m[2] ?? m[3] ?? '').trim();
    if ((m[1] ?? '').toLowerCase() === 'base') {
      // Only the first <base href> counts (HTML); it comes before the links in this web.
      if (base === pageUrl) base = resolve(href, pageUrl) ?? pageUrl;
      continue;
    }
    const url = resolve(href, base);
    if (url !== null) out.push(url);
  }
  return out;
}
