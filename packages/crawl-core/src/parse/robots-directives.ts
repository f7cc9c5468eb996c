/**
 * Indexing directives from `<meta name="robots">` and the X-Robots-Tag header. Restrictive
 * directives win: once any applicable source says `noindex`, the page is noindex.
 */
export interface RobotsDirectives {
  /** Do not index the page (`noindex`, or `none`). */
  noindex: boolean;
  /** Do not follow the page's links (`nofollow`, or `none`). */
  nofollow: boolean;
  /** Do not offer a cached copy (`noarchive`, or Bing's `nocache`). */
  noarchive: boolean;
}

/** No directive: index, follow, archive. */
export function noRobotsDirectives(): RobotsDirectives {
  return { noindex: false, nofollow: false, noarchive: false };
}

/**
 * Directives that carry a value after a colon (`max-snippet: 20`): such a token is a
 * directive, not a user-agent prefix.
 */
const VALUED_DIRECTIVES = new Set([
  'unavailable_after',
  'max-snippet',
  'max-image-preview',
  'max-video-preview',
]);

/** Applies one directive token (any case) to `into`; unknown tokens are ignored. */
function applyDirective(token: string, into: RobotsDirectives): void {
  switch (token.trim().toLowerCase()) {
    case 'noindex':
      into.noindex = true;
      break;
    case 'nofollow':
      into.nofollow = true;
      break;
    case 'none':
      into.noindex = true;
      into.nofollow = true;
      break;
    case 'noarchive':
    case 'nocache':
      into.noarchive = true;
      break;
    default:
  }
}

/**
 * Applies the `content` of a robots `<meta>` (`"noindex, nofollow"`; commas or spaces
 * separate directives) to `into`.
 */
export function applyMetaRobots(content: string, into: RobotsDirectives): void {
  for (const token of content.split(/[\s,]+/)) applyDirective(token, into);
}

/**
 * Applies X-Robots-Tag header values to `into`. A directive may be scoped to a user agent
 * (`otherbot: noindex, nofollow`): the scope runs to the end of that header value or the next
 * scope, and applies only when it names `productToken` (case-insensitive). Without a product
 * token, scoped directives are ignored: they are addressed to someone else.
 *
 * Pass each header line as its own array element when the response repeated the header: a
 * scope then ends with its line. A single string is treated as one line, so a scope opened in
 * one of several comma-joined lines also covers the lines after it (the common HTTP join makes
 * the boundary invisible).
 *
 * @param values the header value(s), or null when the response had none
 * @param productToken our crawler's robots product token (e.g. `crawlerbot`)
 */
export function applyXRobotsTag(
  values: string | readonly string[] | null,
  into: RobotsDirectives,
  productToken?: string,
): void {
  if (values === null) return;
  const me = productToken?.trim().toLowerCase() || null;
  for (const line of typeof values === 'string' ? [values] : values) {
    let scope: string | null = null;
    for (const part of line.split(',')) {
      let token = part.trim();
      const colon = /^([^\s:]+)\s*:\s*(.*)$/.exec(token);
      if (colon) {
        const name = colon[1]!.toLowerCase();
        if (VALUED_DIRECTIVES.has(name)) continue;
        scope = name;
        token = colon[2]!;
      }
      if (scope === null || scope === me) applyDirective(token, into);
    }
  }
}
