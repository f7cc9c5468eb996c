// The console's one way to the coordinator: tRPC calls that carry the signed-in user's session
// (never a shared admin token), so the coordinator applies that user's role to each. With
// CONSOLE_SECRET set (the same value as the coordinator's), calls also carry the console's
// credential and the browser's address, which the coordinator then counts logins against and
// records in its audit log instead of the console's own address.
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import {
  CLIENT_ADDRESS_HEADER,
  CONSOLE_SECRET_HEADER,
  CSRF_HEADER,
  SESSION_COOKIE,
  TRPC_CONSOLE_BATCH_ITEMS,
} from '@crawler/domain/api';
import type { AppRouter } from '../api/router-types';
import { consoleErrorReply } from './console-errors';

const DEFAULT_COORDINATOR_URL = 'http://127.0.0.1:4000';
const TIMEOUT_MS = 10_000;

/** The coordinator's session cookie, as the console forwards it. */
export const COORDINATOR_COOKIE = SESSION_COOKIE;

/** Whom a call is made for. */
export interface CallFor {
  /** The coordinator's session id (from the console's cookie); none for a sign-in. */
  session?: string | null;
  /** The browser's address (see client-address.ts); sent only with CONSOLE_SECRET. */
  clientAddress?: string | null;
}

/** The coordinator's answer to one HTTP request, read whole. */
export interface UpstreamReply {
  status: number;
  contentType: string;
  text: string;
  /** `Set-Cookie` headers of the answer (login and logout set the session cookie). */
  setCookies: string[];
  /** The answer's Retry-After (a throttled login), to pass on to the browser. */
  retryAfter: string | null;
}

/** The coordinator's base URL from COORDINATOR_URL (a path prefix is kept), or null if invalid. */
export function coordinatorBase(): string | null {
  const base = (process.env.COORDINATOR_URL ?? '').trim() || DEFAULT_COORDINATOR_URL;
  try {
    return new URL(base).toString().replace(/\/+$/, '');
  } catch {
    return null;
  }
}

function failed(code: Parameters<typeof consoleErrorReply>[0], message: string): UpstreamReply {
  const r = consoleErrorReply(code, message);
  return { ...r, contentType: 'application/json', setCookies: [], retryAfter: null };
}

/**
 * One request to the coordinator's tRPC endpoint: `path` is what follows `/trpc/` (procedures
 * and query string). A POST (a mutation) gets `x-crawler-csrf: 1`: the console's own routes
 * checked the browser's origin before calling. Never throws: a bad COORDINATOR_URL, network
 * failures and timeouts are tRPC error answers (500/502/504) that say what to do.
 */
export async function fetchCoordinator(
  path: string,
  init: { method: 'GET' | 'POST'; body?: string },
  as: CallFor,
): Promise<UpstreamReply> {
  const base = coordinatorBase();
  if (base === null)
    return failed(
      'CONSOLE_MISCONFIGURED',
      'COORDINATOR_URL is not a valid URL: set it to the coordinator, e.g. http://127.0.0.1:4000, and restart the console.',
    );
  const headers: Record<string, string> = { accept: 'application/json' };
  if (as.session) headers.cookie = `${COORDINATOR_COOKIE}=${as.session}`;
  if (init.method === 'POST') {
    headers[CSRF_HEADER] = '1';
    headers['content-type'] = 'application/json';
  }
  const secret = process.env.CONSOLE_SECRET?.trim();
  if (secret) {
    headers[CONSOLE_SECRET_HEADER] = secret;
    if (as.clientAddress) headers[CLIENT_ADDRESS_HEADER] = as.clientAddress;
  }
  try {
    const res = await fetch(`${base}/trpc/${path}`, {
      method: init.method,
      headers,
      cache: 'no-store',
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    return {
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      text: await res.text(),
      setCookies: res.headers.getSetCookie(),
      retryAfter: res.headers.get('retry-after'),
    };
  } catch (err) {
    return err instanceof DOMException && err.name === 'TimeoutError'
      ? failed(
          'COORDINATOR_TIMEOUT',
          `The coordinator at ${base} did not answer within ${TIMEOUT_MS / 1000} s. Check that it is running and not overloaded.`,
        )
      : failed(
          'COORDINATOR_UNREACHABLE',
          `Cannot reach the coordinator at ${base}. Start it with \`npm start\`, or set COORDINATOR_URL if it runs elsewhere.`,
        );
  }
}

/** Where the link sends calls; {@link fetchCoordinator} puts them on COORDINATOR_URL. */
const LINK_URL = 'http://coordinator/trpc';

/**
 * A typed client of the coordinator for one caller (build one per request). Calls made in the
 * same tick go as one batch: one request, one session lookup. `onReply` sees each answer
 * whole (the session cookie a login sets, a throttled login's Retry-After).
 */
export function coordinatorClient(as: CallFor, onReply?: (reply: UpstreamReply) => void) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: LINK_URL,
        maxURLLength: 4000,
        maxItems: TRPC_CONSOLE_BATCH_ITEMS, // at most the coordinator's TRPC_MAX_BATCH_SIZE
        fetch: async (url, init) => {
          const href = typeof url === 'string' ? url : url instanceof URL ? url.href : url.url;
          const reply = await fetchCoordinator(
            href.slice(LINK_URL.length + 1),
            {
              method: init?.method === 'POST' ? 'POST' : 'GET',
              ...(typeof init?.body === 'string' ? { body: init.body } : {}),
            },
            as,
          );
          onReply?.(reply);
          return new Response(reply.text, {
            status: reply.status,
            headers: { 'content-type': reply.contentType },
          });
        },
      }),
    ],
  });
}

/** The coordinator's session as its login answer sets it: the id and how long it lasts. */
export interface CoordinatorSession {
  id: string;
  /** The cookie's Max-Age (the coordinator's SESSION_TTL_MS, in seconds), null when absent. */
  maxAgeS: number | null;
}

/** The coordinator's session cookie in a login answer (value and Max-Age), or null. */
export function sessionFromSetCookies(setCookies: string[]): CoordinatorSession | null {
  for (const c of setCookies) {
    const [first = '', ...attributes] = c.split(';');
    const eq = first.indexOf('=');
    if (eq > 0 && first.slice(0, eq).trim() === COORDINATOR_COOKIE) {
      const value = first.slice(eq + 1).trim();
      if (value === '') return null;
      let maxAgeS: number | null = null;
      for (const a of attributes) {
        const [name = '', v = ''] = a.split('=').map((x) => x.trim());
        if (name.toLowerCase() === 'max-age' && /^\d+$/.test(v)) maxAgeS = Number(v);
      }
      return { id: value, maxAgeS };
    }
  }
  return null;
}
