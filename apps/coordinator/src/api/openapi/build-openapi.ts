import { z } from 'zod';
import { APP_ERRORS, type AppErrorCode } from '../app-error';
import type { Route } from '../procedure-routes';

type Json = Record<string, unknown>;

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema; `io` picks input or output types. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Json;
  return rest;
}

/** Query parameters from an object schema: one parameter per property. */
function queryParameters(schema: z.ZodType): Json[] {
  const json = schemaOf(schema, 'input');
  const props = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: s,
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
  }));
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };

const errorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: Object.keys(APP_ERRORS),
          description: 'Stable code: branch on it, never on the message',
        },
        message: { type: 'string' },
        fields: {
          description: '400 on invalid input: each invalid field (path `(body)`: the body itself)',
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'message'],
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
        details: { description: 'Machine-readable details, e.g. `needed` and `role` of a 403' },
      },
    },
  },
};

/** What each code says about a request, in an operation's error answers. */
const MEANING: Record<AppErrorCode, string> = {
  BAD_REQUEST:
    'the input is invalid (`fields` names each invalid field), or the body is not JSON sent as application/json',
  UNAUTHENTICATED: 'no or bad credentials (an unknown, revoked or expired token or session)',
  FORBIDDEN: 'the caller may not do this (a role too low: `details.needed`)',
  CSRF_REJECTED: 'a change made with a session cookie lacks `x-crawler-csrf: 1`',
  NOT_FOUND: 'what the call names does not exist',
  METHOD_NOT_ALLOWED: 'another method is needed on this path',
  CONFLICT: 'the current state does not allow it',
  PAYLOAD_TOO_LARGE: 'the body is larger than the operation reads',
  BATCH_TOO_LARGE: 'a tRPC batch has more calls than TRPC_MAX_BATCH_SIZE (tRPC only)',
  LOGIN_THROTTLED: 'out of login attempts: `Retry-After` says when one may succeed',
  LOGIN_BUSY:
    'too many logins wait for their password check: `Retry-After` says when one may succeed',
  UNAVAILABLE: 'a store it needs is unavailable: try again later',
  INTERNAL: 'an unexpected error (the coordinator logs it)',
};

/**
 * Whether an operation reaches a store (Postgres, Redis, ClickHouse, the object store), so that
 * `asAppError` can answer it 503 UNAVAILABLE when one is down: every authenticated one
 * (authentication reads Postgres on each call), and every public change (login and logout
 * write sessions). Only a public read (this document) reaches none; a test checks that.
 */
export function reachesStore(r: Route): boolean {
  return r.access !== 'public' || r.method !== 'GET';
}

/** The API codes an operation can answer with: from its shape (input, role, body) and meta. */
export function errorCodesOf(r: Route): AppErrorCode[] {
  const codes = new Set<AppErrorCode>();
  if (r.hasInput || r.keys.length > 0) codes.add('BAD_REQUEST');
  if (r.access !== 'public') codes.add('UNAUTHENTICATED');
  if (r.access === 'operator' || r.access === 'admin') codes.add('FORBIDDEN');
  if (r.method !== 'GET') codes.add('CSRF_REJECTED');
  if (r.maxBodyBytes !== false) codes.add('BAD_REQUEST').add('PAYLOAD_TOO_LARGE');
  if (reachesStore(r)) codes.add('UNAVAILABLE');
  for (const code of r.meta.errors ?? []) codes.add(code);
  return [...codes];
}

/** One response per HTTP status the operation can answer with, besides 200. */
function errorResponses(r: Route): Json {
  const byStatus = new Map<number, AppErrorCode[]>();
  for (const code of errorCodesOf(r)) {
    const status = APP_ERRORS[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const partial = r.meta.partial && r.schemas.output;
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => {
        let description = codes.map((c) => `${c}: ${MEANING[c]}`).join('; ');
        let schema: Json = ERROR_REF;
        if (status === 400 && partial) {
          description += `; or part of the input was refused: the whole answer beside \`error\` says what was applied and what was not`;
          // The answer's own fields beside `error`, so not `additionalProperties: false`.
          const { additionalProperties: _open, ...answer } = schemaOf(partial, 'output');
          schema = { anyOf: [ERROR_REF, { allOf: [ERROR_REF, answer] }] };
        }
        const retryAfter = codes.some((c) => c === 'LOGIN_THROTTLED' || c === 'LOGIN_BUSY')
          ? { headers: { 'Retry-After': { description: 'Seconds', schema: { type: 'integer' } } } }
          : {};
        return [
          String(status),
          { description, ...retryAfter, content: { 'application/json': { schema } } },
        ];
      }),
  );
}

function operation(r: Route): Json {
  const pathParams = r.keys.map((k) => ({
    name: k,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const s = r.schemas;
  return {
    operationId: `${r.method.toLowerCase()}${r.path
      .replace(/^\/v1/, '')
      .replace(/[^A-Za-z0-9]+(\w)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: s.summary,
    'x-required-role': r.access,
    'x-trpc-procedure': r.procedure,
    ...(r.access === 'public' ? { security: [] } : {}),
    parameters: [...pathParams, ...(s.query ? queryParameters(s.query) : [])],
    ...(s.input
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: schemaOf(s.input, 'input') } },
          },
        }
      : {}),
    responses: {
      '200': {
        description: 'OK',
        content: {
          'application/json': { schema: s.output ? schemaOf(s.output, 'output') : {} },
        },
      },
      ...errorResponses(r),
      default: {
        description: `INTERNAL: ${MEANING.INTERNAL}`,
        content: { 'application/json': { schema: ERROR_REF } },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the REST routes, from their procedures' zod schemas and meta. */
export function buildOpenApi(routes: readonly Route[]): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    paths[r.openApiPath] = { ...paths[r.openApiPath], [r.method.toLowerCase()]: operation(r) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Crawler coordinator API',
      version: '1',
      description:
        'Every route except login, logout and this document needs a session cookie (crawler_session) or an API token (Authorization: Bearer crw_…); x-required-role is the least role that may call it (viewer < operator < admin). Cookie-authenticated mutations need the header x-crawler-csrf: 1. Each operation is also the tRPC procedure x-trpc-procedure under /trpc.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { session: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API token (crw_…)' },
        session: { type: 'apiKey', in: 'cookie', name: 'crawler_session' },
      },
      schemas: { Error: errorBody },
    },
    paths,
  };
}

const cache = new WeakMap<readonly Route[], Json>();

/** {@link buildOpenApi}, memoized per route table. */
export function openApiDocument(routes: readonly Route[]): Json {
  let doc = cache.get(routes);
  if (!doc) cache.set(routes, (doc = buildOpenApi(routes)));
  return doc;
}
