import { rest } from './api-meta';
import { openApiDocument } from './openapi/build-openapi';
import { restRoutesOf } from './procedure-routes';
import { auditRouter, authRouter, tokensRouter, usersRouter } from './routers/accounts';
import { deadLettersRouter, hostsRouter, seedsRouter, statsRouter } from './routers/crawl';
import { frontierRouter } from './routers/frontier';
import {
  agentsRouter,
  capturesRouter,
  settingsRouter,
  shardsRouter,
  urlsRouter,
} from './routers/inspect';
import { publicProcedure, router } from './trpc';

/** The API's own description: GET /v1/openapi.json, generated from this router. */
const docsRouter = router({
  openapi: publicProcedure
    .meta(rest('GET', '/v1/openapi.json', 'This OpenAPI 3.1 document'))
    .query((): Record<string, unknown> => openApiDocument(restRoutesOf(appRouter))),
});

/**
 * The API: every procedure is served over tRPC under /trpc and, from its `meta.openapi`, as
 * REST under /v1 (api/procedure-routes.ts), which /v1/openapi.json describes.
 */
export const appRouter = router({
  seeds: seedsRouter,
  hosts: hostsRouter,
  deadLetters: deadLettersRouter,
  stats: statsRouter,
  auth: authRouter,
  users: usersRouter,
  tokens: tokensRouter,
  audit: auditRouter,
  urls: urlsRouter,
  captures: capturesRouter,
  agents: agentsRouter,
  shards: shardsRouter,
  settings: settingsRouter,
  frontier: frontierRouter,
  docs: docsRouter,
});

export type AppRouter = typeof appRouter;
