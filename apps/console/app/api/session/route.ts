// Sign-in and sign-out. The browser posts its credentials here; the console calls the
// coordinator's login and keeps the coordinator's session id in its own httpOnly cookie.
import { NextResponse } from 'next/server';
import { clientAddress } from '../../../lib/server/client-address';
import { callCoordinator, sessionFromSetCookies } from '../../../lib/server/coordinator';
import { MAX_SIGN_IN_BODY_BYTES, readBodyText } from '../../../lib/server/read-body';
import { crossSiteRejected, isSameOrigin } from '../../../lib/server/same-origin';
import {
  SESSION_COOKIE,
  cookieSecure,
  readSession,
  sessionCookieOptions,
  sessionMaxAgeS,
} from '../../../lib/server/session';

export const dynamic = 'force-dynamic';

const NO_STORE = { 'cache-control': 'no-store' };

export async function POST(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return crossSiteRejected();
  const read = await readBodyText(request, MAX_SIGN_IN_BODY_BYTES);
  if (!read.ok) return read.response;
  let input: unknown;
  try {
    input = JSON.parse(read.text) as unknown;
  } catch {
    input = null;
  }
  const { email, password } = (input ?? {}) as { email?: unknown; password?: unknown };
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password)
    return Response.json(
      { error: { code: 'BAD_REQUEST', message: 'Enter your email and password.' } },
      { status: 400, headers: NO_STORE },
    );
  const reply = await callCoordinator('/v1/auth/login', {
    method: 'POST',
    body: { email, password },
    clientAddress: clientAddress(request.headers),
  });
  const session = reply.status === 200 ? sessionFromSetCookies(reply.setCookies) : null;
  if (!session)
    return Response.json(reply.body, {
      status: reply.status === 200 ? 502 : reply.status,
      // A throttled sign-in (429) says when to try again.
      headers: { ...NO_STORE, ...(reply.retryAfter ? { 'retry-after': reply.retryAfter } : {}) },
    });
  const res = NextResponse.json(reply.body, { headers: NO_STORE });
  // The cookie lasts as long as the coordinator's session (SESSION_TTL_MS), no longer.
  res.cookies.set(
    SESSION_COOKIE,
    session.id,
    sessionCookieOptions(cookieSecure(), sessionMaxAgeS(session.maxAgeS)),
  );
  return res;
}

export async function DELETE(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return crossSiteRejected();
  const session = await readSession();
  if (session)
    await callCoordinator('/v1/auth/logout', {
      method: 'POST',
      session,
      clientAddress: clientAddress(request.headers),
    });
  const res = NextResponse.json({ ok: true }, { headers: NO_STORE });
  res.cookies.set(SESSION_COOKIE, '', sessionCookieOptions(cookieSecure(), 0));
  return res;
}
