import { CrawlerError } from '@crawler/domain/errors';
import { describe, expect, it } from 'vitest';
import { APP_ERRORS, asAppError, type AppErrorCode } from '../app-error';
import type { Route } from '../procedure-routes';
import { restRoutes } from '../rest-routes';
import { appRouter } from '../router';
import type { Context } from '../trpc';
import { buildOpenApi, reachesStore } from './build-openapi';

interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content: Record<string, { schema: Record<string, unknown> }>;
}
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: { schemas: { Error: { properties: { error: { properties: object } } } } };
}

const doc = buildOpenApi(restRoutes) as unknown as Doc;
const responses = (path: string, method: string) => doc.paths[path]![method]!.responses;

describe('the OpenAPI document, generated from the procedures', () => {
  it('has one operation per procedure with meta.openapi, and every procedure has one', () => {
    const procedures = Object.keys(appRouter._def.procedures);
    expect(restRoutes.map((r) => r.procedure).sort()).toEqual(procedures.sort());
    const ops = Object.values(doc.paths).flatMap((p) => Object.keys(p));
    expect(ops).toHaveLength(restRoutes.length);
  });

  it('POST /v1/seeds documents its 400: field errors, or the partial answer naming each entry', () => {
    const r400 = responses('/v1/seeds', 'post')['400']!;
    const schema = r400.content['application/json']!.schema as {
      anyOf: [unknown, { allOf: [unknown, { properties: Record<string, unknown> }] }];
    };
    expect(schema.anyOf[0]).toEqual({ $ref: '#/components/schemas/Error' });
    const answer = schema.anyOf[1].allOf[1];
    expect(Object.keys(answer.properties)).toEqual(
      expect.arrayContaining(['valid', 'added', 'rejected']),
    );
    expect(JSON.stringify(answer.properties.rejected)).toContain('"reason"');
    expect(Object.keys(doc.components.schemas.Error.properties.error.properties)).toEqual(
      expect.arrayContaining(['code', 'message', 'fields', 'details']),
    );
  });

  it('lists each error status an operation can answer with, and no other', () => {
    expect(Object.keys(responses('/v1/seeds', 'post'))).toEqual([
      '200',
      '400',
      '401',
      '403',
      '413',
      '503',
      'default',
    ]);
    // Documented 409s: the last admin, an agent that is alive, a rebuild that runs.
    expect(Object.keys(responses('/v1/users/{id}', 'patch'))).toEqual(
      expect.arrayContaining(['404', '409']),
    );
    expect(responses('/v1/agents/{id}/release-leases', 'post')['409']!.description).toMatch(
      /^CONFLICT: /,
    );
    expect(responses('/v1/frontier/rebuild', 'post')['409']).toBeDefined();
    // A viewer read: credentials only, no role or CSRF refusal, no body; 503 with a store down.
    expect(Object.keys(responses('/v1/stats', 'get'))).toEqual(['200', '401', '503', 'default']);
    expect(Object.keys(responses('/v1/captures', 'get'))).toEqual([
      '200',
      '400',
      '401',
      '404',
      '503',
      'default',
    ]);
    expect(Object.keys(responses('/v1/openapi.json', 'get'))).toEqual(['200', 'default']);
  });

  it('documents 429 with Retry-After on login, and 403 for CSRF on cookie changes', () => {
    const login = responses('/v1/auth/login', 'post');
    expect(Object.keys(login)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '413',
      '429',
      '503',
      'default',
    ]);
    expect(login['429']!.headers).toHaveProperty('Retry-After');
    expect(login['403']!.description).toMatch(/^CSRF_REJECTED: /);
    expect(responses('/v1/settings', 'put')['403']!.description).toMatch(
      /^FORBIDDEN: .*; CSRF_REJECTED: /,
    );
  });
});

/**
 * What each operation can answer with, written out from the rules of api/rest.ts and
 * api/trpc.ts rather than from build-openapi.ts: the input (400), credentials (401, and 503
 * when authentication cannot read Postgres), the role (403), CSRF on changes (403), a body
 * (400, 413), a store down on any change (503), and the operation's own `meta.errors`.
 */
function expectedCodes(r: Route): Set<AppErrorCode> {
  const codes = new Set<AppErrorCode>(r.meta.errors ?? []);
  if (r.hasInput || r.keys.length > 0) codes.add('BAD_REQUEST');
  if (r.access !== 'public') codes.add('UNAUTHENTICATED').add('UNAVAILABLE');
  if (r.access === 'operator' || r.access === 'admin') codes.add('FORBIDDEN');
  if (r.method !== 'GET') codes.add('CSRF_REJECTED').add('UNAVAILABLE');
  if (r.maxBodyBytes !== false) codes.add('BAD_REQUEST').add('PAYLOAD_TOO_LARGE');
  return codes;
}

/** A context whose services and credentials throw when anything reaches for them. */
function contextReachingNothing(): Context {
  const services = new Proxy(
    {},
    {
      get: (_t, key) => {
        throw new Error(`reached services.${String(key)}`);
      },
    },
  ) as Context['services'];
  return {
    services,
    request: {
      method: 'GET',
      headers: {},
      requestId: 'test',
      sourceIp: null,
      setCookie: () => undefined,
    },
    authenticate: () => Promise.reject(new Error('reached the credentials')),
  };
}

describe('every operation documents every error it can answer with', () => {
  it('each code its shape and meta imply, under its status, and no status besides', () => {
    for (const r of restRoutes) {
      const label = `${r.method} ${r.path}`;
      const documented = responses(r.openApiPath, r.method.toLowerCase());
      const codes = expectedCodes(r);
      for (const code of codes) {
        const answer = documented[String(APP_ERRORS[code].http)];
        expect(answer, `${label}: ${code}`).toBeDefined();
        expect(answer!.description.split('; ').some((d) => d.startsWith(`${code}: `))).toBe(true);
      }
      const statuses = new Set([...codes].map((c) => String(APP_ERRORS[c].http)));
      expect(
        Object.keys(documented).filter((s) => s !== '200' && s !== 'default'),
        label,
      ).toEqual([...statuses].sort());
      // Every answer, the errors' too, has a body: the error shape (or the partial answer).
      for (const [status, answer] of Object.entries(documented))
        expect(answer.content['application/json'], `${label} ${status}`).toBeDefined();
    }
  });

  it('503 wherever a store may be down: every operation but those that reach none', async () => {
    // What asAppError answers for a CrawlerError that may pass (Redis, Postgres down).
    class Down extends CrawlerError {
      readonly code = 'TEST_STORE_DOWN';
      readonly retry = 'backoff' as const;
    }
    const app = asAppError(new Down('down'));
    expect(app?.code).toBe('UNAVAILABLE');
    const status = String(app!.httpStatus);
    expect(status).toBe('503');
    const storeFree = restRoutes.filter((r) => !reachesStore(r));
    for (const r of restRoutes.filter(reachesStore))
      expect(
        responses(r.openApiPath, r.method.toLowerCase())[status],
        `${r.method} ${r.path}`,
      ).toBeDefined();
    // Those said to reach no store answer with every service and credential unreachable.
    expect(storeFree.map((r) => r.path)).toEqual(['/v1/openapi.json']);
    for (const r of storeFree)
      await expect(r.call(contextReachingNothing(), undefined)).resolves.toBeDefined();
    // …and the check can tell: an operation that reads a store fails under it.
    const stats = restRoutes.find((r) => r.path === '/v1/stats')!;
    await expect(stats.call(contextReachingNothing(), undefined)).rejects.toThrow();
  });
});
