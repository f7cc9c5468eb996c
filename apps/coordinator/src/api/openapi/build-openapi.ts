import { z } from 'zod';
import type { Route } from '../rest';

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

const errorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'Stable code, e.g. BAD_REQUEST, FORBIDDEN' },
        message: { type: 'string' },
        fields: {
          type: 'array',
          items: {
            type: 'object',
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
        details: {},
      },
    },
  },
};

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
    ...(s.summary ? { summary: s.summary } : {}),
    'x-required-role': r.access,
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
      default: {
        description: 'An error (400 names each invalid field)',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the REST routes, from their zod schemas (built once). */
export function buildOpenApi(routes: readonly Route[]): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [r.method.toLowerCase()]: operation(r) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Crawler coordinator API',
      version: '1',
      description:
        'Every route except login, logout and this document needs a session cookie (crawler_session) or an API token (Authorization: Bearer crw_…); x-required-role is the least role that may call it (viewer < operator < admin). Cookie-authenticated mutations need the header x-crawler-csrf: 1.',
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
