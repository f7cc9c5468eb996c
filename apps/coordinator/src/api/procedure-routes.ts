import type { AnyProcedure, AnyRouter } from '@trpc/server';
import { z } from 'zod';
import type { Role } from '../auth/roles';
import type { ApiMeta, OpenApiMeta, RestMethod } from './api-meta';
import { MAX_BODY_BYTES } from './http-io';
import { createCallerFactory, type Context } from './trpc';

/** What the OpenAPI document says about a route; the procedure validates with the same schemas. */
export interface RouteSchemas {
  summary: string;
  /** The JSON body. */
  input?: z.ZodType;
  /** The query string (an object schema; each property is one parameter). */
  query?: z.ZodObject;
  /** The 200 answer. */
  output?: z.ZodType;
}

/** One REST /v1 route: a procedure served at a method and path (see api/rest.ts). */
export interface Route {
  method: RestMethod;
  /** With `:name` parameters, as 403 messages name it: `/v1/hosts/:host`. */
  path: string;
  /** As documented: `/v1/hosts/{host}`. */
  openApiPath: string;
  pattern: RegExp;
  /** Path parameter names, in order. */
  keys: string[];
  /** The least role that may call it, or 'public' (login, logout, the OpenAPI document). */
  access: Role | 'public';
  /** Largest JSON body read, or false for routes that read none. */
  maxBodyBytes: number | false;
  /** Where the input fields beyond the path come from (null: none, or no input at all). */
  inputFrom: 'body' | 'query' | null;
  /** Whether the procedure takes an input. */
  hasInput: boolean;
  /** The tRPC path of the procedure, e.g. `hosts.get`. */
  procedure: string;
  meta: OpenApiMeta;
  schemas: RouteSchemas;
  /** Calls the procedure in process with `ctx` (errors are TRPCErrors, as over /trpc). */
  call(ctx: Context, input: unknown): Promise<unknown>;
}

type Callable = ((input: unknown) => Promise<unknown>) & { [key: string]: Callable };

/** The body or query part of an input schema: what is not a path parameter. */
function restOf(schema: z.ZodType | undefined, keys: string[], bodyField?: string) {
  if (!schema) return undefined;
  if (!(schema instanceof z.ZodObject)) return keys.length === 0 ? schema : undefined;
  if (bodyField) return schema.shape[bodyField] as z.ZodType;
  if (keys.length === 0) return Object.keys(schema.shape).length > 0 ? schema : undefined;
  const rest = schema.omit(Object.fromEntries(keys.map((k) => [k, true])) as never);
  return Object.keys(rest.shape).length > 0 ? rest : undefined;
}

function routeOf(
  name: string,
  procedure: AnyProcedure,
  meta: OpenApiMeta & { access: Role | 'public' },
  createCaller: (ctx: Context) => unknown,
): Route {
  const keys: string[] = [];
  const pattern = new RegExp(
    `^${meta.path.replace(/\{(\w+)\}/g, (_m, k: string) => (keys.push(k), '([^/]+)'))}$`,
  );
  const def = procedure._def as { type: string; inputs: unknown[]; output?: unknown };
  const input = def.inputs[0] as z.ZodType | undefined;
  if ((meta.method === 'GET') !== (def.type === 'query'))
    throw new Error(`${name}: GET routes serve queries, other methods mutations`);
  const inQuery = meta.method === 'GET' || meta.method === 'DELETE';
  const rest = restOf(input, keys, meta.bodyField);
  const output = def.output as z.ZodType | undefined;
  return {
    method: meta.method,
    path: meta.path.replace(/\{(\w+)\}/g, ':$1'),
    openApiPath: meta.path,
    pattern,
    keys,
    access: meta.access,
    maxBodyBytes: !rest || inQuery ? false : (meta.maxBodyBytes ?? MAX_BODY_BYTES),
    inputFrom: !rest ? null : inQuery ? 'query' : 'body',
    hasInput: input !== undefined,
    procedure: name,
    meta,
    schemas: {
      summary: meta.summary,
      ...(rest && !inQuery ? { input: rest } : {}),
      ...(rest instanceof z.ZodObject && inQuery ? { query: rest } : {}),
      ...(output ? { output } : {}),
    },
    call: (ctx, value) =>
      name.split('.').reduce<Callable>((node, key) => node[key]!, createCaller(ctx) as Callable)(
        value,
      ),
  };
}

const cache = new WeakMap<AnyRouter, Route[]>();

/**
 * REST /v1, generated from the procedures of `router` that have `meta.openapi`: the tRPC
 * procedures are the only definition of the API (built once per router).
 */
export function restRoutesOf(router: AnyRouter): Route[] {
  let routes = cache.get(router);
  if (routes) return routes;
  const createCaller = createCallerFactory(router) as (ctx: Context) => unknown;
  const procedures = router._def.procedures as Record<string, AnyProcedure>;
  routes = Object.entries(procedures).flatMap(([name, procedure]) => {
    const meta = procedure._def.meta as ApiMeta | undefined;
    if (!meta?.openapi) return [];
    if (!meta.access) throw new Error(`${name}: build it from api/trpc.ts's procedures`);
    return [routeOf(name, procedure, { ...meta.openapi, access: meta.access }, createCaller)];
  });
  cache.set(router, routes);
  return routes;
}
