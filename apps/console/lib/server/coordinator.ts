// The console's one way to the coordinator: every call carries the signed-in user's session
// (never a shared admin token), so the coordinator applies that user's role to it. With
// CONSOLE_SECRET set (the same value as the coordinator's), calls also carry the console's
// credential and the browser's address, which the coordinator then counts logins against and
// records in its audit log instead of the console's own address.

const DEFAULT_COORDINATOR_URL = 'http://127.0.0.1:4000';
const TIMEOUT_MS = 10_000;

/** The coordinator's session cookie, as the console forwards it. */
export const COORDINATOR_COOKIE = 'crawler_session';
/** The console's credential (CONSOLE_SECRET), and the browser's address it vouches for. */
const CONSOLE_SECRET_HEADER = 'x-crawler-console';
const CLIENT_ADDRESS_HEADER = 'x-crawler-client-address';

export interface UpstreamReply {
  status: number;
  body: unknown;
  /** `Set-Cookie` headers of the answer (login and logout set the session cookie). */
  setCookies: string[];
  /** The answer's Retry-After (a throttled login), to pass on to the browser. */
  retryAfter?: string;
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

/** A console-side failure in the shape the coordinator uses for its own errors. */
export function consoleError(status: number, code: string, message: string): UpstreamReply {
  return { status, body: { error: { code, message } }, setCookies: [] };
}

/**
 * Calls the coordinator. `path` starts with `/v1/` and may carry a query string. Mutations get
 * `x-crawler-csrf: 1`: the console's own routes checked the browser's origin before calling.
 * Network failures and timeouts become 502/504 answers with a message that says what to do.
 */
export async function callCoordinator(
  path: string,
  opts: {
    method?: string;
    session?: string | null;
    body?: unknown;
    /** The browser's address (see client-address.ts); sent only with CONSOLE_SECRET. */
    clientAddress?: string | null;
  } = {},
): Promise<UpstreamReply> {
  const base = coordinatorBase();
  if (base === null)
    return consoleError(
      500,
      'CONSOLE_MISCONFIGURED',
      'COORDINATOR_URL is not a valid URL: set it to the coordinator, e.g. http://127.0.0.1:4000, and restart the console.',
    );
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.session) headers.cookie = `${COORDINATOR_COOKIE}=${opts.session}`;
  if (method !== 'GET' && method !== 'HEAD') headers['x-crawler-csrf'] = '1';
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const secret = process.env.CONSOLE_SECRET?.trim();
  if (secret) {
    headers[CONSOLE_SECRET_HEADER] = secret;
    if (opts.clientAddress) headers[CLIENT_ADDRESS_HEADER] = opts.clientAddress;
  }
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers,
      cache: 'no-store',
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
  } catch (err) {
    const timeout = err instanceof DOMException && err.name === 'TimeoutError';
    return timeout
      ? consoleError(
          504,
          'COORDINATOR_TIMEOUT',
          `The coordinator at ${base} did not answer within ${TIMEOUT_MS / 1000} s. Check that it is running and not overloaded.`,
        )
      : consoleError(
          502,
          'COORDINATOR_UNREACHABLE',
          `Cannot reach the coordinator at ${base}. Start it with \`npm start\`, or set COORDINATOR_URL if it runs elsewhere.`,
        );
  }
  const text = await res.text();
  let body: unknown = null;
  if (text !== '') {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = {
        error: {
          code: 'BAD_RESPONSE',
          message: `The coordinator answered ${res.status} with something other than JSON.`,
        },
      };
    }
  }
  const retryAfter = res.headers.get('retry-after');
  return {
    status: res.status,
    body,
    setCookies: res.headers.getSetCookie(),
    ...(retryAfter !== null ? { retryAfter } : {}),
  };
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
