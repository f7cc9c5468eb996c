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
import { router } from './trpc';

/** The tRPC API; the REST /v1 routes call the same services with the same schemas. */
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
});

export type AppRouter = typeof appRouter;
