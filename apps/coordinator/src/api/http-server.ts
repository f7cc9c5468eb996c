import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { authenticate } from '../auth/authenticate';
import type { Caller, RequestInfo } from '../auth/caller';
import { AppError } from './app-error';
import { send, sendCode, sendError } from './http-io';
import { requestInfo } from './request-info';
import { handleRest } from './rest';
import { restRoutes } from './rest-routes';
import { appRouter } from './router';
import type { Services } from './services';
import type { ApiObserver } from '../metrics/api-metrics';
import type { Context } from './trpc';
import { limitTrpcBatches } from './trpc-batch-limit';

const TRPC_BASE = '/trpc/';

/**
 * The coordinator's HTTP API: REST under /v1, tRPC under /trpc, health at /healthz. Everything
 * but /healthz and login needs credentials (see auth/authenticate.ts).
 */
export function createApiServer(services: Services, observe?: ApiObserver): Server {
  const requests = new WeakMap<IncomingMessage, RequestInfo>();
  const maxBatchSize = services.config.TRPC_MAX_BATCH_SIZE;
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: TRPC_BASE,
    // A batch's calls run at once, each with its own queries: bound what one request starts.
    middleware: limitTrpcBatches(appRouter, TRPC_BASE, maxBatchSize),
    maxBatchSize,
    createContext: ({ req }): Context => {
      const request = requests.get(req)!;
      let caller: Promise<Caller | null> | undefined;
      return {
        services,
        request,
        // Once per HTTP request, even for a batch of procedures.
        authenticate: () => (caller ??= authenticate(services.store, req.headers)),
      };
    },
    maxBodySize: 2 * 1024 * 1024,
    // REST sends Retry-After from sendError; tRPC answers get it here.
    responseMeta: ({ errors }) => {
      const retryAfterS = errors
        .map((e) => (e.cause instanceof AppError ? e.cause.retryAfterS : undefined))
        .find((s) => s !== undefined);
      return retryAfterS !== undefined ? { headers: { 'retry-after': String(retryAfterS) } } : {};
    },
  });
  return createServer((req, res) => {
    observe?.(req, res); // API latency by route (metrics/api-metrics.ts)
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/healthz') return send(res, 200, { ok: true });
    const request = requestInfo(req, res, services.config.CONSOLE_SECRET);
    requests.set(req, request);
    if (path.startsWith(TRPC_BASE)) return void trpc(req, res);
    handleRest(services, restRoutes, req, res, path, request)
      .then((handled) => {
        if (!handled)
          sendCode(res, 'NOT_FOUND', { message: `no route ${req.method ?? ''} ${path}` });
      })
      .catch((err: unknown) => sendError(services, req, res, err));
  });
}
