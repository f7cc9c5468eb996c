import { createServer, type Server } from 'node:http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { appRouter } from './router';
import { handleRest, send, sendError } from './rest';
import type { Services } from './services';

/** The coordinator's HTTP API: REST under /v1, tRPC under /trpc, health at /healthz. */
export function createApiServer(services: Services): Server {
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    createContext: () => ({ services }),
    maxBodySize: 2 * 1024 * 1024,
  });
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/healthz') return send(res, 200, { ok: true });
    if (path.startsWith('/trpc/')) return void trpc(req, res);
    handleRest(services, req, res, path)
      .then((handled) => {
        if (!handled)
          send(res, 404, {
            error: { code: 'NOT_FOUND', message: `no route ${req.method ?? ''} ${path}` },
          });
      })
      .catch((err: unknown) => sendError(services, res, err));
  });
}
