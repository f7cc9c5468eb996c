import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlerError } from '@crawler/domain/errors';
import { asAppError, AppError } from '../src/api/app-error';
import { startAuthKit, type AuthKit } from './auth-kit';

// Stable codes over both transports, against a real coordinator (Postgres, Redis, ClickHouse):
// tRPC answers carry `data.appCode`, REST `error.code`.
let kit: AuthKit;
let base = '';

beforeAll(async () => {
  kit = await startAuthKit('error-codes');
  base = kit.url;
});
afterAll(async () => {
  await kit?.stop();
});

async function call(method: string, path: string, body?: unknown, csrf = false) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(csrf ? { 'x-crawler-csrf': '1' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

describe('tRPC errors carry data.appCode', () => {
  it.each([
    ['GET', '/trpc/stats.get', undefined, false, 401, 'UNAUTHORIZED', 'UNAUTHENTICATED'],
    ['POST', '/trpc/auth.logout', {}, false, 403, 'FORBIDDEN', 'CSRF_REJECTED'],
    ['POST', '/trpc/auth.login', { email: 'x' }, true, 400, 'BAD_REQUEST', 'BAD_REQUEST'],
    ['GET', '/trpc/no.such', undefined, false, 404, 'NOT_FOUND', 'NOT_FOUND'],
  ] as const)(
    '%s %s %j (csrf: %s) → %i %s, appCode %s',
    async (method, path, body, csrf, status, code, app) => {
      const res = await call(method, path, body, csrf);
      expect(res.status).toBe(status);
      const data = (res.body as { error: { data: { code: string; appCode: string } } }).error.data;
      expect(data).toMatchObject({ code, appCode: app });
    },
  );
});

describe('REST errors carry the same codes in error.code', () => {
  it('a cookie change without proof is CSRF_REJECTED; bad input names its fields', async () => {
    expect((await call('POST', '/v1/auth/logout')).body).toMatchObject({
      error: { code: 'CSRF_REJECTED' },
    });
    const bad = await call('POST', '/v1/auth/login', { email: 'x', password: 'y' }, true);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'BAD_REQUEST', fields: [{ path: 'email' }] } });
  });

  it('a wrong method is METHOD_NOT_ALLOWED, an unknown route NOT_FOUND', async () => {
    expect(await call('GET', '/v1/auth/login')).toMatchObject({
      status: 405,
      body: { error: { code: 'METHOD_NOT_ALLOWED' } },
    });
    expect(await call('GET', '/v1/nothing')).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
  });
});

describe('asAppError: one mapping of the error base to API answers', () => {
  class Down extends CrawlerError {
    readonly code = 'STORE_DOWN';
    readonly retry = 'backoff';
  }
  class Broken extends CrawlerError {
    readonly code = 'STORE_BROKEN';
    readonly retry = 'give_up';
  }

  it('an AppError answers as itself; a passing CrawlerError as 503; others are internal', () => {
    const own = new AppError('CONFLICT', 'taken');
    expect(asAppError(own)).toBe(own);
    const down = asAppError(new Down('redis down'));
    expect(down).toMatchObject({ code: 'UNAVAILABLE', httpStatus: 503, retry: 'backoff' });
    expect(down?.message).toContain('STORE_DOWN');
    expect(asAppError(new Broken('bad'))).toBeNull();
    expect(asAppError(new Error('x'))).toBeNull();
  });
});
