// CSRF defence of the console's own mutation endpoints: a change must come from a page of this
// console. Browsers set Sec-Fetch-Site and Origin themselves; a page on another site cannot.

/** True when the request demonstrably comes from this origin. */
export function isSameOrigin(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin';
  const origin = request.headers.get('origin');
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  if (!origin || origin === 'null' || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Why a change from elsewhere is refused (CSRF_REJECTED). */
export const CROSS_SITE_MESSAGE =
  'Changes are accepted only from the console’s own pages. Reload the console and try again.';
