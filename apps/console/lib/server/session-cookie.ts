// The console's own session cookie. It holds the coordinator's session id, relayed at sign-in;
// httpOnly so page scripts never see it, SameSite=Lax so other sites' requests do not carry it.
import { cookies } from 'next/headers';

export const SESSION_COOKIE = 'console_session';
/** The coordinator's default SESSION_TTL_MS (12 h), for when nothing better is known. */
const DEFAULT_SESSION_TTL_S = 12 * 3600;

/**
 * How long the console's cookie lasts: as long as the coordinator's session. The coordinator
 * says so in its login answer (its cookie's Max-Age is SESSION_TTL_MS); without it, the
 * console's own SESSION_TTL_MS (when it shares the coordinator's environment), else 12 h.
 */
export function sessionMaxAgeS(coordinatorMaxAgeS: number | null): number {
  if (coordinatorMaxAgeS !== null && coordinatorMaxAgeS > 0) return coordinatorMaxAgeS;
  const ttlMs = Number(process.env.SESSION_TTL_MS);
  return Number.isFinite(ttlMs) && ttlMs >= 1000 ? Math.floor(ttlMs / 1000) : DEFAULT_SESSION_TTL_S;
}

/** The coordinator's session id the browser's cookie holds, or null when signed out. */
export async function readSession(): Promise<string | null> {
  const jar = await cookies();
  return jar.get(SESSION_COOKIE)?.value ?? null;
}

/** The cookie's attributes; `maxAgeS` from {@link sessionMaxAgeS} (0 clears it). */
export function sessionCookieOptions(secure: boolean, maxAgeS: number) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure,
    maxAge: maxAgeS,
  };
}

/** `COOKIE_SECURE=true` (served over HTTPS) adds the Secure flag, as on the coordinator. */
export function cookieSecure(): boolean {
  return process.env.COOKIE_SECURE === 'true';
}
