/**
 * Resolves the effective base of a page: the page URL, or its `<base href>` resolved against
 * it when valid (HTML: a base that does not parse, or is a `data:` or `javascript:` URL, is
 * ignored). Returns the base as a WHATWG-serialized URL when one was resolved, else `pageUrl`
 * unchanged. Never throws.
 *
 * @param pageUrl the URL the page was fetched from (after redirects)
 * @param baseHref the `href` of the page's first `<base>` element, if any
 */
export function resolveBase(pageUrl: string, baseHref: string | undefined): string {
  if (baseHref === undefined || baseHref.trim() === '') return pageUrl;
  let resolved: URL;
  try {
    resolved = new URL(baseHref, pageUrl);
  } catch {
    // The page URL itself does not parse: only an absolute base href can help.
    try {
      resolved = new URL(baseHref);
    } catch {
      return pageUrl;
    }
  }
  if (resolved.protocol === 'data:' || resolved.protocol === 'javascript:') return pageUrl;
  return resolved.href;
}
