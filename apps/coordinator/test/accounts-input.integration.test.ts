import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthKit, type AuthKit } from './auth-kit';
import { httpCall, type ApiError, type TrpcError } from './http-call';

// Bad input on the account endpoints (login, users, tokens, audit): a 4xx that names the
// field, and nothing written, not even an audit entry.
let kit: AuthKit;

beforeAll(async () => {
  kit = await startAuthKit('accounts-input');
}, 60_000);

afterAll(async () => {
  await kit?.stop();
});

/** Everything these endpoints could write. */
async function snapshot() {
  return {
    users: await kit.count('users'),
    tokens: await kit.count('api_tokens'),
    sessions: await kit.count('sessions'),
    audit: await kit.count('audit_log'),
    userRows: (await kit.db.query('SELECT * FROM users ORDER BY email')).rows as unknown[],
  };
}

interface Case {
  name: string;
  method: string;
  path: string | (() => string);
  body?: string;
  contentType?: string;
  status: number;
  code: string;
  message: RegExp;
  fields?: string[];
}

const HUGE = `{"email": "a@b.co", "password": "${'x'.repeat(70 * 1024)}"}`;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const viewerPath = () => `/v1/users/${kit.accounts.viewer.id}`;

const cases: Case[] = [
  // POST /v1/auth/login
  {
    name: 'login: malformed JSON',
    method: 'POST',
    path: '/v1/auth/login',
    body: '{"email": ',
    status: 400,
    code: 'BAD_REQUEST',
    message: /not valid JSON/,
  },
  {
    name: 'login: text/plain',
    method: 'POST',
    path: '/v1/auth/login',
    body: '{}',
    contentType: 'text/plain',
    status: 400,
    code: 'BAD_REQUEST',
    message: /Content-Type: application\/json/,
  },
  {
    name: 'login: email a number',
    method: 'POST',
    path: '/v1/auth/login',
    body: '{"email": 42, "password": "x"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^email: /,
    fields: ['email'],
  },
  {
    name: 'login: not an email',
    method: 'POST',
    path: '/v1/auth/login',
    body: '{"email": "admin@localhost", "password": "x"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^email: an email address/,
    fields: ['email'],
  },
  {
    name: 'login: password missing',
    method: 'POST',
    path: '/v1/auth/login',
    body: '{"email": "a@b.co"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /password/,
    fields: ['password'],
  },
  {
    name: 'login: unknown field',
    method: 'POST',
    path: '/v1/auth/login',
    body: '{"email": "a@b.co", "password": "x", "remember": true}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"remember"/,
  },
  {
    name: 'login: body null',
    method: 'POST',
    path: '/v1/auth/login',
    body: 'null',
    status: 400,
    code: 'BAD_REQUEST',
    message: /\(body\)/,
  },
  {
    name: 'login: body over 64 KiB',
    method: 'POST',
    path: '/v1/auth/login',
    body: HUGE,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: /larger than 65536 bytes/,
  },
  // POST /v1/users
  {
    name: 'users.create: malformed JSON',
    method: 'POST',
    path: '/v1/users',
    body: '{"email"',
    status: 400,
    code: 'BAD_REQUEST',
    message: /not valid JSON/,
  },
  {
    name: 'users.create: not an email',
    method: 'POST',
    path: '/v1/users',
    body: '{"email": "nope", "password": "long-enough", "role": "viewer"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^email: /,
    fields: ['email'],
  },
  {
    name: 'users.create: unknown role',
    method: 'POST',
    path: '/v1/users',
    body: '{"email": "r@test.local", "password": "long-enough", "role": "root"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^role: /,
    fields: ['role'],
  },
  {
    name: 'users.create: short password',
    method: 'POST',
    path: '/v1/users',
    body: '{"email": "p@test.local", "password": "short", "role": "viewer"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /password: at least 8 characters/,
    fields: ['password'],
  },
  {
    name: 'users.create: password a number',
    method: 'POST',
    path: '/v1/users',
    body: '{"email": "p@test.local", "password": 12345678, "role": "viewer"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /password/,
    fields: ['password'],
  },
  {
    name: 'users.create: unknown field',
    method: 'POST',
    path: '/v1/users',
    body: '{"email": "u@test.local", "password": "long-enough", "role": "viewer", "is_admin": true}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"is_admin"/,
  },
  {
    name: 'users.create: body over 64 KiB',
    method: 'POST',
    path: '/v1/users',
    body: HUGE,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: /larger than 65536 bytes/,
  },
  // PATCH /v1/users/{id}
  {
    name: 'users.update: id not a UUID',
    method: 'PATCH',
    path: '/v1/users/42',
    body: '{"role": "viewer"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^id: a user id \(UUID\)/,
    fields: ['id'],
  },
  {
    name: 'users.update: unknown user',
    method: 'PATCH',
    path: `/v1/users/${UNKNOWN_ID}`,
    body: '{"role": "viewer"}',
    status: 404,
    code: 'NOT_FOUND',
    message: /does not exist/,
  },
  {
    name: 'users.update: empty patch',
    method: 'PATCH',
    path: viewerPath,
    body: '{}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /give at least one of/,
  },
  {
    name: 'users.update: disabled "yes"',
    method: 'PATCH',
    path: viewerPath,
    body: '{"disabled": "yes"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^disabled: /,
    fields: ['disabled'],
  },
  {
    name: 'users.update: role "superuser"',
    method: 'PATCH',
    path: viewerPath,
    body: '{"role": "superuser"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^role: /,
    fields: ['role'],
  },
  {
    name: 'users.update: email cannot change',
    method: 'PATCH',
    path: viewerPath,
    body: '{"email": "x@test.local"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"email"/,
  },
  {
    name: 'users.update: body an array',
    method: 'PATCH',
    path: viewerPath,
    body: '[{"role": "admin"}]',
    status: 400,
    code: 'BAD_REQUEST',
    message: /\(body\)/,
  },
  // POST /v1/tokens
  {
    name: 'tokens.create: empty name',
    method: 'POST',
    path: '/v1/tokens',
    body: '{"name": "  "}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^name: /,
    fields: ['name'],
  },
  {
    name: 'tokens.create: unknown role',
    method: 'POST',
    path: '/v1/tokens',
    body: '{"name": "x", "role": "root"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^role: /,
    fields: ['role'],
  },
  {
    name: 'tokens.create: expires_at "tomorrow"',
    method: 'POST',
    path: '/v1/tokens',
    body: '{"name": "x", "expires_at": "tomorrow"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^expires_at: /,
    fields: ['expires_at'],
  },
  {
    name: 'tokens.create: expires_at in 50 years',
    method: 'POST',
    path: '/v1/tokens',
    body: '{"name": "x", "expires_at": "2090-01-01T00:00:00Z"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /within 10 years/,
    fields: ['expires_at'],
  },
  {
    name: 'tokens.create: user_id not a UUID',
    method: 'POST',
    path: '/v1/tokens',
    body: '{"name": "x", "user_id": "me"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^user_id: /,
    fields: ['user_id'],
  },
  {
    name: 'tokens.create: unknown user',
    method: 'POST',
    path: '/v1/tokens',
    body: `{"name": "x", "user_id": "${UNKNOWN_ID}"}`,
    status: 404,
    code: 'NOT_FOUND',
    message: /^user_id: /,
  },
  {
    name: 'tokens.create: unknown field',
    method: 'POST',
    path: '/v1/tokens',
    body: '{"name": "x", "secret": "crw_mine"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"secret"/,
  },
  {
    name: 'tokens.create: body over 64 KiB',
    method: 'POST',
    path: '/v1/tokens',
    body: HUGE,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: /larger than 65536 bytes/,
  },
  // DELETE /v1/tokens/{id}
  {
    name: 'tokens.revoke: id not a UUID',
    method: 'DELETE',
    path: '/v1/tokens/abc',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^id: a token id \(UUID\)/,
    fields: ['id'],
  },
  {
    name: 'tokens.revoke: unknown token',
    method: 'DELETE',
    path: `/v1/tokens/${UNKNOWN_ID}`,
    status: 404,
    code: 'NOT_FOUND',
    message: /does not exist/,
  },
  // Lists
  {
    name: 'audit: limit 0',
    method: 'GET',
    path: '/v1/audit?limit=0',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^limit: /,
    fields: ['limit'],
  },
  {
    name: 'audit: limit "many"',
    method: 'GET',
    path: '/v1/audit?limit=many',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^limit: /,
    fields: ['limit'],
  },
  {
    name: 'audit: cursor "abc"',
    method: 'GET',
    path: '/v1/audit?cursor=abc',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^cursor: /,
    fields: ['cursor'],
  },
  {
    name: 'audit: cursor beyond 64 bits',
    method: 'GET',
    path: '/v1/audit?cursor=9999999999999999999',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^cursor: /,
    fields: ['cursor'],
  },
  {
    name: 'audit: action "drop table"',
    method: 'GET',
    path: '/v1/audit?action=drop%20table',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^action: /,
    fields: ['action'],
  },
  {
    name: 'audit: unknown parameter',
    method: 'GET',
    path: '/v1/audit?actor=me',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"actor"/,
  },
  {
    name: 'users.list: limit 1000',
    method: 'GET',
    path: '/v1/users?limit=1000',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^limit: /,
    fields: ['limit'],
  },
  {
    name: 'tokens.list: cursor "x"',
    method: 'GET',
    path: '/v1/tokens?cursor=x',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^cursor: /,
    fields: ['cursor'],
  },
];

describe('rejected requests on the account endpoints', () => {
  it.each(cases)('$name → $status, nothing written', async (c) => {
    const before = await snapshot();
    const res = await kit.call<ApiError>(c.method, typeof c.path === 'string' ? c.path : c.path(), {
      ...(c.body !== undefined ? { body: c.body } : {}),
      ...(c.contentType ? { headers: { 'content-type': c.contentType } } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(c.status);
    expect(res.body.error.code).toBe(c.code);
    expect(res.body.error.message).toMatch(c.message);
    for (const f of c.fields ?? []) expect(res.body.error.fields?.map((x) => x.path)).toContain(f);
    expect(await snapshot()).toEqual(before);
  });

  it('tRPC users.create with a bad role is BAD_REQUEST naming the field, nothing written', async () => {
    const before = await snapshot();
    const res = await httpCall<TrpcError>(kit.url, 'POST', '/trpc/users.create', {
      body: { email: 't@test.local', password: 'long-enough', role: 'root' },
      headers: { authorization: `Bearer ${kit.accounts.admin.token}` },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.data.fields?.map((f) => f.path)).toEqual(['role']);
    expect(await snapshot()).toEqual(before);
  });

  it('tRPC tokens.create with an unknown field is BAD_REQUEST, nothing written', async () => {
    const before = await snapshot();
    const res = await httpCall<TrpcError>(kit.url, 'POST', '/trpc/tokens.create', {
      body: { name: 'x', scopes: ['all'] },
      headers: { authorization: `Bearer ${kit.accounts.viewer.token}` },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('scopes');
    expect(await snapshot()).toEqual(before);
  });

  it('an anonymous huge body is refused before it is read (401, connection closed)', async () => {
    const res = await httpCall<ApiError>(kit.url, 'POST', '/v1/users', {
      body: `{"pad": "${'x'.repeat(4 * 1024 * 1024)}"}`,
    });
    expect(res.status).toBe(401);
    expect(res.headers.connection).toBe('close');
  });

  it('the coordinator still serves', async () => {
    expect((await kit.call('GET', '/v1/auth/me')).status).toBe(200);
  });
});
