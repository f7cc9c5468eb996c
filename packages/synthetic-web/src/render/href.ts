/**
 * Writes a link spec as an href: relative, root-relative, absolute, upper-case host or scheme,
 * protocol-relative, with dot segments, tracking parameters, fragments and unsorted queries.
 * Every form resolves (after canonicalisation) to the spec's target.
 */
import { hostName } from '../model/assign.js';
import type { LinkSpec } from '../model/resources.js';
import { mix } from '../prng.js';

/** Relative reference from directory `fromDir` (e.g. `/a/b/`) to `pathKey` (e.g. `/a/c/x.html?q`). */
export function relativeRef(fromDir: string, pathKey: string): string {
  const q = pathKey.indexOf('?');
  const path = q < 0 ? pathKey : pathKey.slice(0, q);
  const query = q < 0 ? '' : pathKey.slice(q);
  const from = fromDir.split('/').filter((s) => s !== '');
  const parts = path.split('/').slice(1);
  const file = parts.pop() ?? '';
  let common = 0;
  while (common < from.length && common < parts.length && from[common] === parts[common]) common++;
  let rel =
    '../'.repeat(from.length - common) +
    parts
      .slice(common)
      .map((s) => `${s}/`)
      .join('') +
    file;
  // `a:b` would read as a scheme; an empty or query-only reference would mean "this document".
  if (rel === '' || rel.startsWith('?') || /^[^/?#]*:/.test(rel)) rel = `./${rel}`;
  return rel + query;
}

function withParams(pathKey: string, link: LinkSpec, pathParam: string): string {
  const q = pathKey.indexOf('?');
  const path = (q < 0 ? pathKey : pathKey.slice(0, q)) + pathParam;
  let pairs = q < 0 ? [] : pathKey.slice(q + 1).split('&');
  if (link.unsorted && pairs.length > 1) pairs = pairs.slice().reverse();
  if (link.noop !== undefined) pairs = [...pairs, link.noop];
  const tag = (mix('tracking', link.host, pathKey) >>> 0).toString(36);
  if (link.tracking === 1) pairs = ['utm_source=newsletter', ...pairs, 'utm_medium=email'];
  else if (link.tracking === 2) pairs = [...pairs, `fbclid=IwAR${tag}`];
  else if (link.tracking === 3) pairs = [`gclid=Cj0K${tag}`, ...pairs];
  return pairs.length === 0 ? path : `${path}?${pairs.join('&')}`;
}

/**
 * The href of a link as written in HTML (not yet attribute-escaped).
 * @param link the link.
 * @param fromHost host index of the page carrying the link.
 * @param fromDir directory used for relative references (the page's, or its base href's).
 * @param port TCP port of the web.
 * @param session the render's session path parameter (`;jsessionid=…`), written into the links
 *   marked `session`; '' for none.
 */
export function renderHref(
  link: LinkSpec,
  fromHost: number,
  fromDir: string,
  port: number,
  session = '',
  httpsOf: (host: number) => boolean = () => false,
): string {
  if (link.variant === 'raw' && link.raw !== undefined) return link.raw;
  const target = withParams(link.path, link, link.session === true ? session : '');
  const name = hostName(link.host);
  const frag = link.fragment ? '#section-2' : '';
  const sameHost = link.host === fromHost;
  const https = httpsOf(link.host);
  const scheme = https ? 'https' : 'http';
  // A protocol-relative link to a host of the other scheme would resolve to the wrong one.
  const sameScheme = https === httpsOf(fromHost);
  switch (
    sameHost
      ? link.variant
      : link.variant === 'root' ||
          link.variant === 'relative' ||
          link.variant === 'dots' ||
          (link.variant === 'protocol-relative' && !sameScheme)
        ? 'absolute'
        : link.variant
  ) {
    case 'root':
      return target + frag;
    case 'relative':
      return relativeRef(fromDir, target) + frag;
    case 'dots':
      return `/docs/../${target.slice(1)}${frag}`;
    case 'upper-host':
      return `${scheme}://${name.toUpperCase()}:${port}${target}${frag}`;
    case 'upper-scheme':
      return `${scheme.toUpperCase()}://${name}:${port}${target}${frag}`;
    case 'protocol-relative':
      return `//${name}:${port}${target}${frag}`;
    default:
      return `${scheme}://${name}:${port}${target}${frag}`;
  }
}

/** Escapes text for an HTML attribute value or text node. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
