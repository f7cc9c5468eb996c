import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { z, ZodError } from 'zod';
import { authenticate } from '../auth/authenticate';
import type { Caller, RequestInfo } from '../auth/caller';
import { assertNotCrossSite, isSafeMethod } from '../auth/csrf';
import { requireRole } from '../auth/roles';
import { AppError, appCodeOfTrpc } from './app-error';
import { readJson, send, sendCode, sendError } from './http-io';
import type { Route } from './procedure-routes';
import type { Services } from './services';
import type { Context } from './trpc';

/**
 * Serves REST /v1 from the routes generated from the procedures (api/procedure-routes.ts).
 * Returns false when no route matches the path. Order of checks: route and method (404/405),
 * credentials (401), cross-site cookie use (403), role (403), body (400/413), then the
 * procedure (its input validation: 400), so an anonymous caller never gets its body read.
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
  try {
    if (!r) {
      const allowed = matching.map((m) => m.method).sort();
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `${req.method ?? ''} is not allowed on ${path}; use ${allowed.join(', ')}`,
      );
    }
    let caller: Promise<Caller | null> | undefined;
    const ctx: Context = {
      services: s,
      request,
      authenticate: () => (caller ??= authenticate(s.store, req.headers)),
    };
    await admit(r, ctx);
    const m = r.pattern.exec(path)!;
    const params = Object.fromEntries(
      r.keys.map((k, i) => [k, decodePathParam(k, m[i + 1] ?? '')]),
    );
    const body = r.maxBodyBytes !== false ? await readJson(req, r.maxBodyBytes) : undefined;
    const query = Object.fromEntries(new URL(req.url ?? '/', 'http://api').searchParams);
    const out = await r.call(ctx, inputOf(r, params, query, body));
    // An answer that applied part of the input (seeds) is a 400 naming what was refused.
    const partial = r.meta.partial?.(out as never);
    if (partial) sendCode(res, 'BAD_REQUEST', { message: partial }, { beside: out as object });
    else send(res, 200, out);
  } catch (err) {
    sendError(s, req, res, r ? restError(err, r) : err);
  }
  return true;
}

/** Credentials (401), cross-site cookie use (403), role (403): before any body is read. */
async function admit(r: Route, ctx: Context): Promise<void> {
  const { request } = ctx;
  const caller = r.access === 'public' ? null : await ctx.authenticate();
  if (r.access !== 'public' && !caller)
    throw new AppError(
      'UNAUTHENTICATED',
      'send Authorization: Bearer <API token>, or log in (POST /v1/auth/login) for a session cookie',
    );
  // Browsers cannot add an Authorization header cross-site without a CORS preflight.
  if (!isSafeMethod(request.method) && request.headers.authorization === undefined)
    assertNotCrossSite(request);
  if (caller && r.access !== 'public') requireRole(caller.role, r.access, `${r.method} ${r.path}`);
}

/**
 * The procedure's input: the path parameters with the query string or the JSON body (or the
 * body as the input field `meta.bodyField`). A body that is not an object is passed as it is,
 * for the procedure's schema to refuse, naming `(body)`.
 */
function inputOf(
  r: Route,
  params: Record<string, string>,
  query: Record<string, string>,
  body: unknown,
): unknown {
  if (!r.hasInput) return undefined;
  const field = r.meta.bodyField;
  if (field) return { ...params, [field]: body };
  const rest = r.inputFrom === 'body' ? body : r.inputFrom === 'query' ? query : {};
  if (r.keys.length === 0 || typeof rest !== 'object' || rest === null || Array.isArray(rest))
    return rest;
  // A body or query naming a path parameter is refused as zod refuses any unknown key.
  const clash = r.keys.filter((k) => Object.hasOwn(rest, k));
  if (clash.length > 0) z.strictObject({}).parse(Object.fromEntries(clash.map((k) => [k, 1])));
  return { ...rest, ...params };
}

/**
 * What a procedure's error answers as over REST: its AppError; its input's ZodError (the
 * issues of `meta.bodyField` named as body fields); another tRPC error by its code; else the
 * error itself (a 500 that is logged).
 */
function restError(err: unknown, r: Route): unknown {
  if (!(err instanceof TRPCError)) return err;
  const cause = err.cause;
  if (cause instanceof AppError) return cause;
  if (cause instanceof ZodError && err.code === 'BAD_REQUEST') {
    const field = r.meta.bodyField;
    return field
      ? new ZodError(
          cause.issues.map((i) => (i.path[0] === field ? { ...i, path: i.path.slice(1) } : i)),
        )
      : cause;
  }
  const code = appCodeOfTrpc(err.code);
  return code === 'INTERNAL' ? err : new AppError(code, err.message);
}

function decodePathParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('BAD_REQUEST', `${name}: "${raw}" has a malformed percent-escape`);
  }
}
