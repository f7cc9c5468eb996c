import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthKit, type AuthKit } from './auth-kit';
import { httpCall, sessionCookieOf, type ApiError, type TrpcError } from './http-call';

// Sessions and API tokens over their lifetime: login, CSRF on cookie changes, logout, expiry,
// revocation, role caps, disabled accounts, and the last-admin guard.
let kit: AuthKit;

beforeAll(async () => {
  kit = await startAuthKit('auth-sessions');
}, 60_000);

afterAll(async () => {
  await kit?.stop();
});

const CSRF = { 'x-crawler-csrf': '1' };
const withCookie = (cookie: string, extra: Record<string, string> = {}) => ({
  headers: { cookie, ...extra },
});

interface TokenReply {
  token: { id: string; role: string; prefix: string; revoked_at: string | null };
  secret: string;
}

describe('login', () => {
  it('sets an httpOnly, SameSite=Lax session cookie and returns the user', async () => {
    const res = await httpCall<{ user: { email: string; role: string } }>(
      kit.url,
      'POST',
      '/v1/auth/login',
      { body: { email: 'Operator@Test.Local', password: 'operator-password-1' }, headers: CSRF },
    );
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email: 'operator@test.local', role: 'operator' });
    expect(JSON.stringify(res.body)).not.toMatch(/scrypt|password/);
    const cookie = (res.headers['set-cookie'] ?? []).find((c) => c.startsWith('crawler_session='))!;
    expect(cookie).toMatch(/^crawler_session=[A-Za-z0-9_-]{43}; /);
    const attrs = cookie.split('; ').slice(1);
    expect(attrs).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));
    expect(attrs).not.toContain('Secure'); // COOKIE_SECURE defaults to false
    // Only the hash of the session id is stored.
    const id = sessionCookieOf(res).split('=')[1]!;
    const rows = await kit.db.query<{ id_hash: string }>('SELECT id_hash FROM sessions');
    expect(rows.rows.map((r) => r.id_hash)).not.toContain(id);

    const me = await httpCall<{ user: { email: string }; via: string }>(
      kit.url,
      'GET',
      '/v1/auth/me',
      withCookie(sessionCookieOf(res)),
    );
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { email: 'operator@test.local' }, via: 'session' });
  });

  it('a wrong password, an unknown email and a disabled account all get the same 401', async () => {
    const disabled = await kit.call<{ id: string }>('POST', '/v1/users', {
      body: { email: 'gone@test.local', password: 'gone-password', role: 'viewer' },
    });
    await kit.call('PATCH', `/v1/users/${disabled.body.id}`, { body: { disabled: true } });
    // A token-only account (like ADMIN_TOKEN's owner without ADMIN_EMAIL) has no password.
    await kit.db.query(
      `INSERT INTO users (email, role, name) VALUES ('token-only@test.local', 'viewer', '')`,
    );
    const bodies: unknown[] = [];
    for (const body of [
      { email: 'operator@test.local', password: 'wrong-password' },
      { email: 'nobody@test.local', password: 'operator-password-1' },
      { email: 'gone@test.local', password: 'gone-password' },
      { email: 'token-only@test.local', password: 'anything-at-all' },
    ]) {
      const res = await httpCall<ApiError>(kit.url, 'POST', '/v1/auth/login', {
        body,
        headers: CSRF,
      });
      expect(res.status, body.email).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
      bodies.push(res.body);
    }
    // Identical answers: nothing says whether the email or the password was wrong.
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toEqual({
      error: { code: 'UNAUTHENTICATED', message: 'email or password is wrong' },
    });
  });

  it('tRPC auth.login sets the same cookie', async () => {
    const res = await httpCall<{ result: { data: { user: { email: string } } } }>(
      kit.url,
      'POST',
      '/trpc/auth.login',
      { body: { email: 'viewer@test.local', password: 'viewer-password-1' }, headers: CSRF },
    );
    expect(res.status).toBe(200);
    expect(res.body.result.data.user.email).toBe('viewer@test.local');
    const me = await httpCall(kit.url, 'GET', '/trpc/auth.me', withCookie(sessionCookieOf(res)));
    expect(me.status).toBe(200);
  });
});

describe('CSRF: changes made with a session cookie', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await kit.login('operator@test.local', 'operator-password-1');
  });

  const block = (host: string, headers: Record<string, string>) =>
    httpCall<ApiError>(kit.url, 'PUT', `/v1/hosts/${host}`, {
      body: { blocked: true },
      headers: { cookie, ...headers },
    });
  const stored = async (host: string) =>
    (await kit.db.query('SELECT 1 FROM host_policies WHERE host = $1', [host])).rowCount;

  it('without the header or a same-origin Origin → 403, nothing written', async () => {
    const refused: Array<Record<string, string>> = [
      {},
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
      { 'x-crawler-csrf': '0' },
    ];
    for (const [i, headers] of refused.entries()) {
      const host = `csrf-${i}.example`;
      const res = await block(host, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error.code).toBe('CSRF_REJECTED');
      expect(res.body.error.message).toContain('x-crawler-csrf: 1');
      expect(await stored(host)).toBe(0);
    }
  });

  it('with x-crawler-csrf: 1, Sec-Fetch-Site: same-origin or a same-host Origin → 200', async () => {
    const host = new URL(kit.url).host;
    const accepted: Array<Record<string, string>> = [
      { 'x-crawler-csrf': '1' },
      { 'sec-fetch-site': 'same-origin' },
      { origin: `http://${host}` },
    ];
    for (const [i, headers] of accepted.entries()) {
      const res = await block(`csrf-ok-${i}.example`, headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(await stored(`csrf-ok-${i}.example`)).toBe(1);
    }
  });

  it('reads need no proof, and bearer-token changes are exempt', async () => {
    expect((await httpCall(kit.url, 'GET', '/v1/stats', withCookie(cookie))).status).toBe(200);
    const res = await kit.call('PUT', '/v1/hosts/csrf-bearer.example', {
      as: 'operator',
      body: { blocked: true },
    });
    expect(res.status).toBe(200);
  });

  it('a tRPC mutation with the cookie and no proof → 403 FORBIDDEN', async () => {
    const res = await httpCall<TrpcError>(kit.url, 'POST', '/trpc/hosts.update', {
      body: { host: 'csrf-trpc.example', patch: { blocked: true } },
      headers: { cookie },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.data.code).toBe('FORBIDDEN');
    expect(await stored('csrf-trpc.example')).toBe(0);
  });

  it('login itself needs the proof (no login CSRF)', async () => {
    const res = await httpCall<ApiError>(kit.url, 'POST', '/v1/auth/login', {
      body: { email: 'operator@test.local', password: 'operator-password-1' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CSRF_REJECTED');
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

describe('session end', () => {
  it('logout ends the session and clears the cookie', async () => {
    const cookie = await kit.login('viewer@test.local', 'viewer-password-1');
    const out = await httpCall(kit.url, 'POST', '/v1/auth/logout', withCookie(cookie, CSRF));
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']?.[0]).toMatch(/^crawler_session=; .*Max-Age=0/);
    const me = await httpCall<ApiError>(kit.url, 'GET', '/v1/auth/me', withCookie(cookie));
    expect(me.status).toBe(401);
  });

  it('an expired session is refused', async () => {
    const cookie = await kit.login('viewer@test.local', 'viewer-password-1');
    expect((await httpCall(kit.url, 'GET', '/v1/stats', withCookie(cookie))).status).toBe(200);
    await kit.db.query(
      `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE revoked_at IS NULL`,
    );
    const res = await httpCall<ApiError>(kit.url, 'GET', '/v1/stats', withCookie(cookie));
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain('log in again');
  });

  it('a new password ends the user’s sessions', async () => {
    const cookie = await kit.login('operator@test.local', 'operator-password-1');
    const res = await kit.call('PATCH', `/v1/users/${kit.accounts.operator.id}`, {
      body: { password: 'operator-password-2' },
    });
    expect(res.status).toBe(200);
    expect((await httpCall(kit.url, 'GET', '/v1/stats', withCookie(cookie))).status).toBe(401);
    await kit.login('operator@test.local', 'operator-password-2');
    await kit.call('PATCH', `/v1/users/${kit.accounts.operator.id}`, {
      body: { password: 'operator-password-1' },
    });
  });
});

describe('API tokens', () => {
  it('a revoked token is refused on the very next call', async () => {
    const made = await kit.call<TokenReply>('POST', '/v1/tokens', {
      as: 'operator',
      body: { name: 'short-lived' },
    });
    expect(made.status).toBe(200);
    expect(made.body.secret).toMatch(/^crw_[A-Za-z0-9_-]{43}$/);
    expect(made.body.token).toMatchObject({ role: 'operator', revoked_at: null });
    expect(made.body.secret.startsWith(made.body.token.prefix)).toBe(true);
    const as = { token: made.body.secret };
    expect((await kit.call('GET', '/v1/stats', { as })).status).toBe(200);

    const revoked = await kit.call<TokenReply['token']>(
      'DELETE',
      `/v1/tokens/${made.body.token.id}`,
      { as: 'operator' },
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    const res = await kit.call<ApiError>('GET', '/v1/stats', { as });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toBe('this API token was revoked');
  });

  it('a token can revoke itself, and then is refused', async () => {
    const made = await kit.call<TokenReply>('POST', '/v1/tokens', {
      as: 'viewer',
      body: { name: 'self-revoking' },
    });
    const as = { token: made.body.secret };
    expect((await kit.call('DELETE', `/v1/tokens/${made.body.token.id}`, { as })).status).toBe(200);
    expect((await kit.call('GET', '/v1/tokens', { as })).status).toBe(401);
  });

  it('an expired token is refused; an expiry in the past is a 400', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const made = await kit.call<TokenReply>('POST', '/v1/tokens', {
      as: 'viewer',
      body: { name: 'expiring', expires_at: inAnHour },
    });
    expect(made.status).toBe(200);
    const as = { token: made.body.secret };
    expect((await kit.call('GET', '/v1/stats', { as })).status).toBe(200);
    await kit.db.query(
      `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [made.body.token.id],
    );
    const res = await kit.call<ApiError>('GET', '/v1/stats', { as });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/^this API token expired at /);

    const past = await kit.call<ApiError>('POST', '/v1/tokens', {
      as: 'viewer',
      body: { name: 'already-expired', expires_at: '2001-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(400);
    expect(past.body.error.fields?.map((f) => f.path)).toEqual(['expires_at']);
  });

  it('stores only the SHA-256 of a secret and records its last use', async () => {
    const made = await kit.call<TokenReply>('POST', '/v1/tokens', {
      as: 'viewer',
      body: { name: 'hashed' },
    });
    await kit.call('GET', '/v1/stats', { as: { token: made.body.secret } });
    const row = (
      await kit.db.query<{ token_hash: string; last_used_at: Date | null }>(
        'SELECT token_hash, last_used_at FROM api_tokens WHERE id = $1',
        [made.body.token.id],
      )
    ).rows[0]!;
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    const dump = JSON.stringify((await kit.db.query('SELECT * FROM api_tokens')).rows);
    expect(dump).not.toContain(made.body.secret);
    expect(row.last_used_at).not.toBeNull();
  });

  it('a token cannot have more rights than its owner or its maker', async () => {
    const up = await kit.call<ApiError>('POST', '/v1/tokens', {
      as: 'viewer',
      body: { name: 'escalate', role: 'operator' },
    });
    expect(up.status).toBe(403);
    expect(up.body.error.message).toContain('at most viewer');
    const forViewer = await kit.call<ApiError>('POST', '/v1/tokens', {
      body: { name: 'admin-for-viewer', role: 'admin', user_id: kit.accounts.viewer.id },
    });
    expect(forViewer.status).toBe(403);
    const other = await kit.call<ApiError>('POST', '/v1/tokens', {
      as: 'operator',
      body: { name: 'for-someone-else', user_id: kit.accounts.viewer.id },
    });
    expect(other.status).toBe(403);
    expect(other.body.error.message).toContain('needs the admin role');
    const lower = await kit.call<TokenReply>('POST', '/v1/tokens', {
      as: 'operator',
      body: { name: 'read-only', role: 'viewer' },
    });
    expect(lower.status).toBe(200);
    const blocked = await kit.call('PUT', '/v1/hosts/lower-token.example', {
      as: { token: lower.body.secret },
      body: { blocked: true },
    });
    expect(blocked.status).toBe(403);
  });

  it('lists one’s own tokens; an admin sees everyone’s; others’ cannot be revoked', async () => {
    type List = { items: Array<{ id: string; user_email: string }>; next_cursor: string | null };
    const mine = await kit.call<List>('GET', '/v1/tokens?limit=500', { as: 'viewer' });
    expect(mine.status).toBe(200);
    expect(new Set(mine.body.items.map((t) => t.user_email))).toEqual(
      new Set(['viewer@test.local']),
    );
    const all = await kit.call<List>('GET', '/v1/tokens?limit=500');
    expect(new Set(all.body.items.map((t) => t.user_email))).toEqual(
      new Set(['admin@test.local', 'operator@test.local', 'viewer@test.local']),
    );
    const adminToken = all.body.items.find((t) => t.user_email === 'admin@test.local')!;
    const res = await kit.call<ApiError>('DELETE', `/v1/tokens/${adminToken.id}`, {
      as: 'viewer',
    });
    expect(res.status).toBe(404);
    expect((await kit.call('GET', '/v1/stats')).status).toBe(200);
  });

  it('pages through tokens with cursor and limit', async () => {
    type List = { items: Array<{ id: string }>; next_cursor: string | null };
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page: { status: number; body: List } = await kit.call<List>(
        'GET',
        `/v1/tokens?limit=2${q}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((t) => t.id));
      cursor = page.body.next_cursor;
      if (!cursor) break;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(await kit.count('api_tokens'));
  });
});

describe('accounts', () => {
  it('demoting a user lowers the rights of its existing tokens at once', async () => {
    const u = await kit.call<{ id: string }>('POST', '/v1/users', {
      body: { email: 'demoted@test.local', password: 'demoted-password', role: 'operator' },
    });
    const t = await kit.call<TokenReply>('POST', '/v1/tokens', {
      body: { name: 'ops', user_id: u.body.id },
    });
    const as = { token: t.body.secret };
    const put = (blocked: boolean) =>
      kit.call('PUT', '/v1/hosts/demoted.example', { as, body: { blocked } });
    expect((await put(true)).status).toBe(200);
    await kit.call('PATCH', `/v1/users/${u.body.id}`, { body: { role: 'viewer' } });
    expect((await put(false)).status).toBe(403);
    expect((await kit.call('GET', '/v1/stats', { as })).status).toBe(200);
    await kit.call('PATCH', `/v1/users/${u.body.id}`, { body: { disabled: true } });
    const res = await kit.call<ApiError>('GET', '/v1/stats', { as });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain('disabled');
  });

  it('the last active admin cannot be demoted or disabled (409), and nothing changes', async () => {
    const admins = await kit.db.query(
      `SELECT email FROM users WHERE role = 'admin' AND NOT disabled`,
    );
    expect(admins.rows).toEqual([{ email: 'admin@test.local' }]);
    const audit = await kit.count('audit_log');
    for (const body of [{ role: 'operator' }, { disabled: true }]) {
      const res = await kit.call<ApiError>('PATCH', `/v1/users/${kit.accounts.admin.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.body.error.message).toContain('last active admin');
    }
    expect(await kit.count('audit_log')).toBe(audit);
    expect((await kit.call('GET', '/v1/users')).status).toBe(200);
  });

  it('an email is one account whatever its case (409 on a duplicate)', async () => {
    const res = await kit.call<ApiError>('POST', '/v1/users', {
      body: { email: 'VIEWER@test.local', password: 'another-one', role: 'viewer' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/^email: viewer@test.local already has an account/);
  });
});
