// The browser's only way to the coordinator's API: `/api/v1/<path>` is relayed to `/v1/<path>`
// with the signed-in user's session. Only the resources the console shows are relayed, and a
// change (any method but GET) must come from the console's own pages (Origin/Sec-Fetch-Site).
import { clientAddress } from '../../../../lib/server/client-address';
import { callCoordinator, consoleError } from '../../../../lib/server/coordinator';
import { MAX_RELAY_BODY_BYTES, readBodyText } from '../../../../lib/server/read-body';
import { crossSiteRejected, isSameOrigin } from '../../../../lib/server/same-origin';
import { readSession } from '../../../../lib/server/session';

export const dynamic = 'force-dynamic';

/** First path segments the console relays. Login and logout go through /api/session. */
const RESOURCES = new Set([
  'agents',
  'audit',
  'auth',
  'captures',
  'dead-letters',
  'hosts',
  'seed-lists',
  'seeds',
  'settings',
  'shards',
  'stats',
  'tokens',
  'urls',
  'users',
]);

/**
 * A 404 for the route itself (an older coordinator) rather than for a missing host or URL. The
 * coordinator has one NOT_FOUND code for both; its router's message is the only difference.
 */
function isMissingRoute(body: unknown): boolean {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (error?.code === 'ROUTE_NOT_FOUND') return true;
  return typeof error?.message === 'string' && error.message.startsWith('no route ');
}

function isSeedsAnswer(body: unknown): boolean {
  const b = body as { valid?: unknown; rejected?: unknown } | null;
  return typeof b?.valid === 'number' && Array.isArray(b.rejected);
}

type Ctx = { params: Promise<{ path: string[] }> };

async function relay(request: Request, ctx: Ctx): Promise<Response> {
  const { path } = await ctx.params;
  const method = request.method.toUpperCase();
  const headers = { 'cache-control': 'no-store' };
  const first = path[0] ?? '';
  if (!RESOURCES.has(first) || (first === 'auth' && path[1] !== 'me')) {
    const r = consoleError(404, 'NOT_FOUND', `The console does not relay /v1/${path.join('/')}.`);
    return Response.json(r.body, { status: r.status, headers });
  }
  if (method !== 'GET' && !isSameOrigin(request)) return crossSiteRejected();
  const session = await readSession();
  if (!session) {
    const r = consoleError(401, 'UNAUTHENTICATED', 'Your session has ended. Sign in again.');
    return Response.json(r.body, { status: r.status, headers });
  }
  let body: unknown;
  if (method !== 'GET' && method !== 'DELETE') {
    // Limited before anything is read into memory (Content-Length, then counted as it streams).
    const read = await readBodyText(request, MAX_RELAY_BODY_BYTES);
    if (!read.ok) return read.response;
    const text = read.text;
    try {
      body = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      const r = consoleError(400, 'BAD_REQUEST', 'The request body is not JSON.');
      return Response.json(r.body, { status: r.status, headers });
    }
  }
  const search = new URL(request.url).search;
  const target = `/v1/${path.map(encodeURIComponent).join('/')}${search}`;
  const reply = await callCoordinator(target, {
    method,
    session,
    body,
    clientAddress: clientAddress(request.headers),
  });
  if (reply.status === 404 && isMissingRoute(reply.body)) {
    const r = consoleError(
      404,
      'NOT_AVAILABLE',
      `This coordinator has no ${method} /v1/${path.join('/')} yet: update the coordinator to a version that matches this console.`,
    );
    return Response.json(r.body, {
      status: r.status,
      headers: { ...headers, 'x-console-unavailable': '1' },
    });
  }
  // Seeds: some entries refused, the valid ones applied. For the page that is a result to show
  // (which were accepted, why the rest were not), not a failed request.
  if (first === 'seeds' && reply.status === 400 && isSeedsAnswer(reply.body))
    return Response.json(reply.body, { status: 200, headers });
  return Response.json(reply.body, { status: reply.status, headers });
}

export const GET = relay;
export const POST = relay;
export const PUT = relay;
export const PATCH = relay;
export const DELETE = relay;
