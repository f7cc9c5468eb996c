import { normalizePercentEncoding } from './normalize-percent-encoding';
import { isTrackingParam } from './strip-tracking-params';

interface Param {
  readonly key: string;
  readonly text: string;
}

/**
 * Normalizes a query string (without the leading `?`) for the seen-check.
 *
 * Parameters are split on `&` only (`;` is data, not a separator), percent-encoding is
 * normalized ({@link normalizePercentEncoding}), then:
 * - parameters with an empty key (`&&`, `=1`) are dropped;
 * - an empty value loses its `=` (`b=` → `b`);
 * - tracking parameters ({@link isTrackingParam}) are dropped;
 * - parameters are sorted by key, keeping the original order of equal keys.
 *
 * Returns `''` when nothing is left, so the caller drops the `?`.
 */
export function normalizeQuery(query: string): string {
  if (query === '') return '';
  const params: Param[] = [];
  for (const raw of query.split('&')) {
    if (raw === '') continue;
    const text = normalizePercentEncoding(raw, 'query');
    const eq = text.indexOf('=');
    const key = eq < 0 ? text : text.slice(0, eq);
    if (key === '' || isTrackingParam(key)) continue;
    params.push({ key, text: eq === text.length - 1 ? key : text });
  }
  // Array.prototype.sort is stable, so equal keys keep their order.
  params.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return params.map((p) => p.text).join('&');
}
