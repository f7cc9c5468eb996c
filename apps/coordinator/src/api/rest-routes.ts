import { restRoutesOf, type Route } from './procedure-routes';
import { appRouter } from './router';

/**
 * REST /v1: generated from the procedures' `meta.openapi` (see api/procedure-routes.ts), each
 * with the least role that may call it (README.md lists them). Nothing is declared here.
 */
export const restRoutes: Route[] = restRoutesOf(appRouter);
