// The browser's only way to the coordinator's API: `/api/trpc/<procedures>` is relayed to the
// coordinator's `/trpc/<procedures>` with the signed-in user's session. Only the procedures
// the console uses are relayed, and a change (a POST: a mutation) must come from the console's
// own pages (Sec-Fetch-Site / Origin) and fit in 2 MiB, refused before it is read.
import type { AppRouter } from '../api/router-types';
import { clientAddress } from './client-address';
import { consoleError } from './console-errors';
import { fetchCoordinator } from './coordinator';
import { MAX_RELAY_BODY_BYTES, readBodyText } from './read-body';
import { CROSS_SITE_MESSAGE, isSameOrigin } from './same-origin';
import { readSession } from './session-cookie';

type Namespace = keyof AppRouter['_def']['record'];

/**
 * Routers whose procedures the console relays: not `frontier` (a rebuild is the CLI's), and of
 * `auth` only `me` (sign-in and sign-out go through /api/session, which keeps the cookie).
 */
const RELAYED = new Set<Namespace>([
  'agents',
  'audit',
  'captures',
  'deadLetters',
  'hosts',
  'seeds',
  'settings',
  'shards',
  'stats',
  'tokens',
  'urls',
  'users',
]);

function isRelayed(procedure: string): boolean {
  const m = /^([A-Za-z]+)\.[A-Za-z]+$/.exec(procedure);
  return m !== null && (RELAYED.has(m[1] as Namespace) || procedure === 'auth.me');
}

/**
 * Relays one tRPC request (`procedures`: one, or a batch joined by commas) and passes the
 * coordinator's answer on as it is (without its cookies).
 */
export async function relayTrpc(request: Request, procedures: string): Promise<Response> {
  const names = procedures.split(',');
  const refused = names.find((p) => !isRelayed(p));
  if (refused !== undefined)
    return consoleError('NOT_FOUND', `The console does not relay ${refused}.`);
  const method = request.method.toUpperCase() === 'POST' ? 'POST' : 'GET';
  if (method === 'POST' && !isSameOrigin(request))
    return consoleError('CSRF_REJECTED', CROSS_SITE_MESSAGE);
  const session = await readSession();
  if (!session) return consoleError('UNAUTHENTICATED', 'Your session has ended. Sign in again.');
  let body: string | undefined;
  if (method === 'POST') {
    const read = await readBodyText(request, MAX_RELAY_BODY_BYTES);
    if (!read.ok) return consoleError('PAYLOAD_TOO_LARGE', read.tooLarge, { connection: 'close' });
    body = read.text;
  }
  const reply = await fetchCoordinator(
    `${names.join(',')}${new URL(request.url).search}`,
    { method, ...(body !== undefined ? { body } : {}) },
    { session, clientAddress: clientAddress(request.headers) },
  );
  if (!/^application\/json\b/i.test(reply.contentType))
    return consoleError(
      'BAD_RESPONSE',
      `The coordinator answered ${reply.status} with something other than JSON.`,
    );
  return new Response(reply.text, {
    status: reply.status,
    headers: { 'content-type': reply.contentType, 'cache-control': 'no-store' },
  });
}
