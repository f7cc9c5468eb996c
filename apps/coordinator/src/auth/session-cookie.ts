import type { IncomingHttpHeaders } from 'node:http';
import { SESSION_COOKIE } from '@crawler/domain/api';

/**
 * The session cookie: httpOnly (page scripts cannot read it), SameSite=Lax (not sent on
 * cross-site subrequests such as a form POST from another site), Secure when COOKIE_SECURE.
 */
export function sessionCookie(id: string, maxAgeMs: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${id}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** A cookie that removes the session cookie from the browser. */
export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

/** The session cookie's value, or null when the request has none. */
export function readSessionCookie(headers: IncomingHttpHeaders): string | null {
  const header = headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}
