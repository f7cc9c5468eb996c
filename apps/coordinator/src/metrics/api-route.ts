/** What the labeller needs of a REST route: its path template and the pattern it matches. */
export interface RouteTemplate {
  /** `/v1/hosts/:host`. */
  path: string;
  pattern: RegExp;
}

/** Methods reported as they are; anything else is `OTHER` (a label set must stay bounded). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The request method as a metric label. */
export function methodLabel(method: string | undefined): string {
  const m = (method ?? '').toUpperCase();
  return METHODS.has(m) ? m : 'OTHER';
}

/**
 * Names the route of a request path for the API latency metric, from a bounded set so that no
 * caller can grow the label set: a REST path as its template (`/v1/hosts/:host`, ids and host
 * names are placeholders), one tRPC procedure as `/trpc/<procedure>` (`/trpc/stats.get`), a
 * batch of several as `/trpc/(batch)`; paths that match nothing are `(unmatched)` (or
 * `/trpc/(unknown)`).
 */
export function apiRouteLabeller(
  routes: readonly RouteTemplate[],
  procedures: Iterable<string>,
): (path: string) => string {
  const known = new Set(procedures);
  return (path) => {
    if (path === '/healthz') return path;
    if (path.startsWith('/trpc/')) {
      const names = path.slice('/trpc/'.length).split(',');
      if (names.length > 1) return '/trpc/(batch)';
      return known.has(names[0] ?? '') ? `/trpc/${names[0]}` : '/trpc/(unknown)';
    }
    return routes.find((r) => r.pattern.test(path))?.path ?? '(unmatched)';
  };
}
