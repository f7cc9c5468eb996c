import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { authenticate } from '../auth/authenticate';
import type { CallContext, Caller, RequestInfo } from '../auth/caller';
import { assertNotCrossSite, isSafeMethod } from '../auth/csrf';
import { requireRole, type Role } from '../auth/roles';
import { AppError } from './app-error';
import { readJson, send, sendError, MAX_BODY_BYTES } from './http-io';
import type { Services } from './services';

/** What a REST handler receives. */
export interface RouteArgs<C extends Caller | null> {
  s: Services;
  params: Record<string, string>;
  body: unknown;
  /** Query-string parameters (validated by the handler's schema like a body). */
  query: Record<string, string>;
  request: RequestInfo;
  /** Null only on public routes. */
  caller: C;
}
type Handler<C extends Caller | null> = (
  a: RouteArgs<C>,
) => Promise<{ status?: number; body: unknown }>;

export interface Route {
  method: string;
  path: string;
  pattern: RegExp;
  keys: string[];
  /** The least role that may call it, or 'public' (login, logout). */
  access: Role | 'public';
  /** Largest JSON body read, or false for routes without a body. */
  maxBodyBytes: number | false;
  handler: Handler<Caller | null>;
  /** The zod schemas of the route, for the OpenAPI document (api/openapi/build-openapi.ts). */
  schemas: RouteSchemas;
}

/** What the OpenAPI document says about a route; the handler validates with the same schemas. */
export interface RouteSchemas {
  summary?: string;
  /** The JSON body. */
  input?: z.ZodType;
  /** The query string (an object schema; each property is one parameter). */
  query?: z.ZodType;
  /** The 200 answer. */
  output?: z.ZodType;
}

interface RouteOptions extends RouteSchemas {
  /** Read a JSON body of at most this many bytes (true: the default limit). */
  body?: boolean | number;
}

function makeRoute(
  method: string,
  path: string,
  access: Role | 'public',
  handler: Handler<Caller | null>,
  opts: RouteOptions,
): Route {
  const keys: string[] = [];
  const pattern = new RegExp(
    `^${path.replace(/:(\w+)/g, (_m, k: string) => (keys.push(k), '([^/]+)'))}$`,
  );
  const maxBodyBytes =
    opts.body === true ? MAX_BODY_BYTES : typeof opts.body === 'number' ? opts.body : false;
  const { body: _body, ...schemas } = opts;
  return { method, path, pattern, keys, access, maxBodyBytes, handler, schemas };
}

/** A route for authenticated callers with at least `role`. */
export function route(
  method: string,
  path: string,
  role: Role,
  handler: Handler<Caller>,
  opts: RouteOptions = {},
): Route {
  return makeRoute(method, path, role, (a) => handler({ ...a, caller: a.caller! }), opts);
}

/** A route anyone may call (the handler authenticates itself if it cares). */
export function publicRoute(
  method: string,
  path: string,
  handler: Handler<null>,
  opts: RouteOptions = {},
): Route {
  return makeRoute(method, path, 'public', (a) => handler({ ...a, caller: null }), opts);
}

/** The caller and request of an authenticated route, as audited services take them. */
export function callOf(a: RouteArgs<Caller>): CallContext {
  return { caller: a.caller, request: a.request };
}

/**
 * Serves REST /v1. Returns false when no route matches the path. Order of checks: route and
 * method (404/405), credentials (401), cross-site cookie use (403), role (403), body (400/413),
 * so an anonymous caller never gets its body read.
 */
export async function handleRest(
  s: Services,
  routes: Route[],
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  request: RequestInfo,
): Promise<boolean> {
  const matching = routes.filter((r) => r.pattern.test(path));
  if (matching.length === 0) return false;
  const r = matching.find((m) => m.method === request.method);
  if (!r) {
    send(res, 405, {
      error: {
        code: 'METHOD_NOT_ALLOWED',
        message: `${req.method ?? ''} is not allowed on ${path}; use ${matching
          .map((m) => m.method)
          .sort()
          .join(', ')}`,
      },
    });
    return true;
  }
  const m = r.pattern.exec(path)!;
  try {
    let caller: Caller | null = null;
    if (r.access !== 'public') {
      caller = await authenticate(s.store, req.headers);
      if (!caller)
        throw new AppError(
          'UNAUTHENTICATED',
          'send Authorization: Bearer <API token>, or log in (POST /v1/auth/login) for a session cookie',
        );
    }
    // Browsers cannot add an Authorization header cross-site without a CORS preflight.
    if (!isSafeMethod(request.method) && request.headers.authorization === undefined)
      assertNotCrossSite(request);
    if (caller && r.access !== 'public')
      requireRole(caller.role, r.access, `${r.method} ${r.path}`);
    const params = Object.fromEntries(
      r.keys.map((k, i) => [k, decodePathParam(k, m[i + 1] ?? '')]),
    );
    const body = r.maxBodyBytes !== false ? await readJson(req, r.maxBodyBytes) : undefined;
    const query = Object.fromEntries(new URL(req.url ?? '/', 'http://api').searchParams);
    const out = await r.handler({ s, params, body, query, request, caller });
    send(res, out.status ?? 200, out.body);
  } catch (err) {
    sendError(s, req, res, err);
  }
  return true;
}

function decodePathParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('BAD_REQUEST', `${name}: "${raw}" has a malformed percent-escape`);
  }
}
