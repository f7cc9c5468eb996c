// Sign-in and sign-out. The browser posts its credentials here; the console calls the
// coordinator's `auth.login` and keeps the coordinator's session id in its own httpOnly cookie.
import { NextResponse } from 'next/server';
import { failureOf, httpStatusOf } from '../../../lib/api/api-failure';
import { clientAddress } from '../../../lib/server/client-address';
import {
  coordinatorClient,
  sessionFromSetCookies,
  type UpstreamReply,
} from '../../../lib/server/coordinator';
import { MAX_SIGN_IN_BODY_BYTES, readBodyText } from '../../../lib/server/read-body';
import { CROSS_SITE_MESSAGE, isSameOrigin } from '../../../lib/server/same-origin';
import {
  SESSION_COOKIE,
  cookieSecure,
  readSession,
  sessionCookieOptions,
  sessionMaxAgeS,
} from '../../../lib/server/session-cookie';

export const dynamic = 'force-dynamic';

const NO_STORE = { 'cache-control': 'no-store' };

/** `{ error: { code, message } }`, what the sign-in form reads. */
function refuse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
) {
  return Response.json(
    { error: { code, message } },
    { status, headers: { ...NO_STORE, ...headers } },
  );
}

export async function POST(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return refuse(403, 'CSRF_REJECTED', CROSS_SITE_MESSAGE);
  const read = await readBodyText(request, MAX_SIGN_IN_BODY_BYTES);
  if (!read.ok) return refuse(413, 'PAYLOAD_TOO_LARGE', read.tooLarge, { connection: 'close' });
  let input: unknown;
  try {
    input = JSON.parse(read.text) as unknown;
  } catch {
    input = null;
  }
  const { email, password } = (input ?? {}) as { email?: unknown; password?: unknown };
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password)
    return refuse(400, 'BAD_REQUEST', 'Enter your email and password.');
  let reply: UpstreamReply | undefined;
  const coordinator = coordinatorClient(
    { clientAddress: clientAddress(request.headers) },
    (r) => (reply = r),
  );
  try {
    const answer = await coordinator.auth.login.mutate({ email, password });
    const session = sessionFromSetCookies(reply?.setCookies ?? []);
    if (!session)
      return refuse(502, 'BAD_RESPONSE', 'The coordinator signed you in but set no session.');
    const res = NextResponse.json(answer, { headers: NO_STORE });
    // The cookie lasts as long as the coordinator's session (SESSION_TTL_MS), no longer.
    res.cookies.set(
      SESSION_COOKIE,
      session.id,
      sessionCookieOptions(cookieSecure(), sessionMaxAgeS(session.maxAgeS)),
    );
    return res;
  } catch (err) {
    const failure = failureOf(err);
    // A throttled sign-in (429) says when to try again.
    const retryAfter = reply?.retryAfter;
    return refuse(
      httpStatusOf(err),
      failure.code,
      failure.message,
      retryAfter ? { 'retry-after': retryAfter } : {},
    );
  }
}

export async function DELETE(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return refuse(403, 'CSRF_REJECTED', CROSS_SITE_MESSAGE);
  const session = await readSession();
  if (session)
    await coordinatorClient({ session, clientAddress: clientAddress(request.headers) })
      .auth.logout.mutate()
      .catch(() => undefined);
  const res = NextResponse.json({ ok: true }, { headers: NO_STORE });
  res.cookies.set(SESSION_COOKIE, '', sessionCookieOptions(cookieSecure(), 0));
  return res;
}
