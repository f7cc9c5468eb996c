import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { CallContext, Caller, RequestInfo } from '../auth/caller';
import { assertNotCrossSite } from '../auth/csrf';
import { requireRole, type Role } from '../auth/roles';
import type { ApiMeta } from './api-meta';
import { AppError, appCodeOfTrpc, asAppError } from './app-error';
import type { Services } from './services';

// 1. Context: the services, the request, and the caller resolved on first use (a public
//    procedure such as login never looks at credentials).
export interface Context {
  services: Services;
  request: RequestInfo;
  authenticate(): Promise<Caller | null>;
}

// 2. Init: one error shape for every procedure. `data.appCode` is the stable API code
//    (CSRF_REJECTED, NOT_FOUND, …; the REST `error.code`): clients branch on it, never on the
//    message. Zod issues are flattened to field → message.
const t = initTRPC
  .context<Context>()
  .meta<ApiMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const cause = error.cause;
      return {
        ...shape,
        data: {
          ...shape.data,
          appCode: cause instanceof AppError ? cause.code : appCodeOfTrpc(error.code),
          fields:
            cause instanceof ZodError
              ? cause.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))
              : undefined,
          details: cause instanceof AppError ? cause.details : undefined,
        },
      };
    },
  });

// 3. Procedures: errors thrown by services become tRPC errors with the mapped code (an
//    AppError's own; another CrawlerError's by its retry class, see app-error.ts).
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  const app = result.ok ? null : asAppError(result.error.cause);
  if (app) throw new TRPCError({ code: app.trpcCode, message: app.message, cause: app });
  return result;
});

export const router = t.router;
/** Calls procedures in process (REST /v1 does, see api/rest.ts). */
export const createCallerFactory = t.createCallerFactory;

/**
 * Anyone may call it (login, logout). A mutation without an Authorization header must still
 * prove it is not a cross-site browser request (see auth/csrf.ts).
 */
export const publicProcedure = t.procedure
  .meta({ access: 'public' })
  .use(mapErrors)
  .use(({ ctx, type, next }) => {
    if (type === 'mutation' && ctx.request.headers.authorization === undefined)
      assertNotCrossSite(ctx.request);
    return next();
  });

/** Callers with at least `role`; the context gains `caller` and `call` (caller + request). */
export function procedureFor(role: Role) {
  return t.procedure
    .meta({ access: role })
    .use(mapErrors)
    .use(async ({ ctx, type, path, next }) => {
      const caller = await ctx.authenticate();
      if (!caller)
        throw new AppError(
          'UNAUTHENTICATED',
          'send Authorization: Bearer <API token>, or log in (auth.login) for a session cookie',
        );
      if (type === 'mutation' && caller.via === 'session') assertNotCrossSite(ctx.request);
      requireRole(caller.role, role, path);
      const call: CallContext = { caller, request: ctx.request };
      return next({ ctx: { caller, call } });
    });
}

export const viewerProcedure = procedureFor('viewer');
export const operatorProcedure = procedureFor('operator');
export const adminProcedure = procedureFor('admin');
