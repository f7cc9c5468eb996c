import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atLeast, ROLES, type Role } from '../src/auth/roles';
import { startAuthKit, type AuthKit } from './auth-kit';
import { httpCall, type ApiError, type TrpcError } from './http-call';

// Who may call what: every route needs credentials (but /healthz and login), and a role at
// least the route's. Checked against a real coordinator with one account per role.
let kit: AuthKit;

beforeAll(async () => {
  kit = await startAuthKit('auth-roles');
  // A host that exists, so that GET /v1/hosts/{host} answers 200.
  const res = await kit.call('PUT', '/v1/hosts/known.example', { body: { blocked: false } });
  expect(res.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await kit?.stop();
});

interface RouteCase {
  method: string;
  path: string | (() => string);
  /** The route as 403 messages name it (default: the path). */
  pattern?: string;
  body?: (role: Role) => object;
  need: Role;
}

let n = 0;
const routes: RouteCase[] = [
  { method: 'GET', path: '/v1/stats', need: 'viewer' },
  {
    method: 'GET',
    path: '/v1/hosts/known.example',
    pattern: '/v1/hosts/:host',
    need: 'viewer',
  },
  { method: 'GET', path: '/v1/dead-letters', need: 'viewer' },
  {
    method: 'GET',
    path: '/v1/stats/series?window=15m',
    pattern: '/v1/stats/series',
    need: 'viewer',
  },
  { method: 'GET', path: '/v1/hosts?q=known', pattern: '/v1/hosts', need: 'viewer' },
  {
    method: 'GET',
    path: '/v1/urls?url=http%3A%2F%2Fknown.example%2F',
    pattern: '/v1/urls',
    need: 'viewer',
  },
  { method: 'GET', path: '/v1/agents', need: 'viewer' },
  { method: 'GET', path: '/v1/seeds', need: 'viewer' },
  { method: 'GET', path: '/v1/seed-lists', need: 'viewer' },
  { method: 'GET', path: '/v1/shards', need: 'viewer' },
  { method: 'GET', path: '/v1/settings', need: 'viewer' },
  { method: 'PUT', path: '/v1/settings', body: () => ({ max_depth: 9 }), need: 'admin' },
  { method: 'GET', path: '/v1/auth/me', need: 'viewer' },
  { method: 'GET', path: '/v1/tokens', need: 'viewer' },
  {
    method: 'POST',
    path: '/v1/tokens',
    body: (r) => ({ name: `matrix-${r}-${n++}` }),
    need: 'viewer',
  },
  {
    method: 'POST',
    path: '/v1/seeds',
    body: (r) => ({ urls: [`http://seeds-${r}.example/`] }),
    need: 'operator',
  },
  {
    method: 'PUT',
    path: '/v1/hosts/matrix.example',
    pattern: '/v1/hosts/:host',
    body: () => ({ rate_limit_rps: 2 }),
    need: 'operator',
  },
  { method: 'POST', path: '/v1/dead-letters/requeue', body: () => ({}), need: 'operator' },
  { method: 'GET', path: '/v1/audit', need: 'operator' },
  { method: 'GET', path: '/v1/users', need: 'admin' },
  {
    method: 'POST',
    path: '/v1/users',
    body: (r) => ({
      email: `made-by-${r}-${n++}@test.local`,
      password: 'longenough',
      role: 'viewer',
    }),
    need: 'admin',
  },
  {
    method: 'PATCH',
    path: () => `/v1/users/${kit.accounts.viewer.id}`,
    pattern: '/v1/users/:id',
    body: () => ({ name: 'renamed viewer' }),
    need: 'admin',
  },
];
const pathOf = (r: RouteCase) => (typeof r.path === 'string' ? r.path : r.path());

describe('REST: each role against each route', () => {
  const cases = routes.flatMap((r) => ROLES.map((role) => ({ ...r, role })));
  it.each(cases)('$method $path as $role (needs $need)', async (c) => {
    const res = await kit.call<ApiError>(c.method, pathOf(c), {
      as: c.role,
      ...(c.body ? { body: c.body(c.role) } : {}),
    });
    if (atLeast(c.role, c.need)) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    } else {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toBe(
        `${c.method} ${c.pattern ?? pathOf(c)} needs the ${c.need} role; this caller has ${c.role}`,
      );
    }
  });

  it.each(routes)('$method $path without credentials is 401', async (c) => {
    const res = await httpCall(
      kit.url,
      c.method,
      pathOf(c),
      c.body ? { body: c.body('viewer') } : {},
    );
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="crawler"');
  });

  it('GET /healthz needs no credentials', async () => {
    const res = await httpCall(kit.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
  });
});

describe('what a refused call leaves behind', () => {
  it('a viewer cannot block a host; an operator can', async () => {
    const host = 'viewer-block.example';
    const refused = await kit.call<ApiError>('PUT', `/v1/hosts/${host}`, {
      as: 'viewer',
      body: { blocked: true },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('needs the operator role');
    const rows = await kit.db.query('SELECT 1 FROM host_policies WHERE host = $1', [host]);
    expect(rows.rowCount).toBe(0);
    expect(
      (await kit.coordinator.services.frontier.hostState(host)).fields.blocked,
    ).toBeUndefined();

    const ok = await kit.call('PUT', `/v1/hosts/${host}`, {
      as: 'operator',
      body: { blocked: true },
    });
    expect(ok.status).toBe(200);
    expect((await kit.coordinator.services.frontier.hostState(host)).fields.blocked).toBe('1');
  });

  it('an operator cannot create users; an admin can', async () => {
    const before = await kit.count('users');
    const body = { email: 'new-ops@test.local', password: 'password-123', role: 'operator' };
    const refused = await kit.call<ApiError>('POST', '/v1/users', { as: 'operator', body });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('needs the admin role; this caller has operator');
    expect(await kit.count('users')).toBe(before);
    const ok = await kit.call<{ email: string; role: string }>('POST', '/v1/users', { body });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ email: 'new-ops@test.local', role: 'operator' });
    expect(await kit.count('users')).toBe(before + 1);
  });

  it('a viewer cannot requeue dead letters or add seeds', async () => {
    const seeds = await kit.count('seeds');
    const a = await kit.call('POST', '/v1/seeds', {
      as: 'viewer',
      body: { urls: ['http://viewer-seed.example/'] },
    });
    const b = await kit.call('POST', '/v1/dead-letters/requeue', { as: 'viewer', body: {} });
    expect([a.status, b.status]).toEqual([403, 403]);
    expect(await kit.count('seeds')).toBe(seeds);
  });
});

describe('tRPC: the same rules', () => {
  const trpc = (path: string, role: Role | null, input?: object) =>
    httpCall<TrpcError & { result?: { data: unknown } }>(
      kit.url,
      input === undefined ? 'GET' : 'POST',
      `/trpc/${path}`,
      {
        ...(input !== undefined ? { body: input } : {}),
        headers: role ? { authorization: `Bearer ${kit.accounts[role].token}` } : {},
      },
    );

  it('without credentials: 401 UNAUTHORIZED', async () => {
    const res = await trpc('stats.get', null);
    expect(res.status).toBe(401);
    expect(res.body.error.data.code).toBe('UNAUTHORIZED');
  });

  it('a viewer cannot hosts.update: 403 FORBIDDEN naming the role', async () => {
    const res = await trpc('hosts.update', 'viewer', {
      host: 'trpc-viewer.example',
      patch: { blocked: true },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.data.code).toBe('FORBIDDEN');
    expect(res.body.error.message).toBe(
      'hosts.update needs the operator role; this caller has viewer',
    );
    const rows = await kit.db.query(
      `SELECT 1 FROM host_policies WHERE host = 'trpc-viewer.example'`,
    );
    expect(rows.rowCount).toBe(0);
  });

  it('an operator can hosts.update but cannot users.create', async () => {
    const ok = await trpc('hosts.update', 'operator', {
      host: 'trpc-operator.example',
      patch: { blocked: true },
    });
    expect(ok.status).toBe(200);
    const before = await kit.count('users');
    const refused = await trpc('users.create', 'operator', {
      email: 'trpc-new@test.local',
      password: 'password-123',
      role: 'viewer',
    });
    expect(refused.status).toBe(403);
    expect(await kit.count('users')).toBe(before);
  });

  it('an admin can users.list and audit.list', async () => {
    expect((await trpc(`users.list?input=${encodeURIComponent('{}')}`, 'admin')).status).toBe(200);
    expect((await trpc(`audit.list?input=${encodeURIComponent('{}')}`, 'admin')).status).toBe(200);
  });

  it('auth.me says who is calling and how', async () => {
    const res = await trpc('auth.me', 'operator');
    expect(res.status).toBe(200);
    expect(res.body.result?.data).toMatchObject({
      user: { email: 'operator@test.local', role: 'operator' },
      role: 'operator',
      via: 'token',
      token: { name: 'operator-token' },
    });
  });
});

describe('bad credentials', () => {
  it.each([
    ['Basic YWRtaW46YWRtaW4=', /Bearer <API token>/],
    ['Bearer', /Bearer <API token>/],
    ['Bearer not-a-crawler-token', /starts with "crw_"/],
    [`Bearer crw_${'A'.repeat(43)}`, /unknown API token/],
  ])('Authorization: %s → 401', async (authorization, message) => {
    const res = await httpCall(kit.url, 'GET', '/v1/stats', { headers: { authorization } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    expect(res.body.error.message).toMatch(message);
  });

  it('a malformed or unknown session cookie → 401', async () => {
    for (const cookie of ['crawler_session=garbage', `crawler_session=${'x'.repeat(43)}`]) {
      const res = await httpCall(kit.url, 'GET', '/v1/stats', { headers: { cookie } });
      expect(res.status, cookie).toBe(401);
      expect(res.body.error.message).toContain('log in again');
    }
  });
});
