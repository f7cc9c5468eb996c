import { describe, expect, it } from 'vitest';
import { restRoutes } from '../rest-routes';
import { appRouter } from '../router';
import { buildOpenApi } from './build-openapi';

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
    // A viewer read: credentials only, no role or CSRF refusal, no body.
    expect(Object.keys(responses('/v1/stats', 'get'))).toEqual(['200', '401', 'default']);
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
    expect(Object.keys(login)).toEqual(['200', '400', '401', '403', '413', '429', 'default']);
    expect(login['429']!.headers).toHaveProperty('Retry-After');
    expect(login['403']!.description).toMatch(/^CSRF_REJECTED: /);
    expect(responses('/v1/settings', 'put')['403']!.description).toMatch(
      /^FORBIDDEN: .*; CSRF_REJECTED: /,
    );
  });
});
