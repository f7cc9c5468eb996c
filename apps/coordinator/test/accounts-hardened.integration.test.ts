import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { loginThrottleKeys } from '../src/auth/login-throttle';
import { hashPassword, scryptParams, verifyPassword } from '../src/auth/password';
import { startAuthKit, type AuthKit } from './auth-kit';
import { httpCall, type ApiError, type TrpcError } from './http-call';

// Accounts hardened (issue 13), against a real coordinator, Postgres and Redis: login limits
// per account and per client address (429 + Retry-After), the console's client-address header
// believed only with the console's credential, failed logins audited once a minute with a
// count, rehashing of weaker password hashes, token lineage (expiry and revocation), and host
// audit entries without their actors for viewers.
const SECRET = 'console-secret-for-tests-0123456789abcdef';
const CSRF = { 'x-crawler-csrf': '1' };
/** Headers of a call relayed by the console for a browser at `address`. */
const viaConsole = (address: string, secret = SECRET) => ({
  'x-crawler-console': secret,
  'x-crawler-client-address': address,
});

let kit: AuthKit;
let redis: RedisClient;

beforeAll(async () => {
  kit = await startAuthKit('accounts-hardened', {
    CONSOLE_SECRET: SECRET,
    LOGIN_ACCOUNT_BURST: '3',
    LOGIN_ACCOUNT_REFILL_MS: '60000',
    LOGIN_ADDRESS_BURST: '6',
    LOGIN_ADDRESS_REFILL_MS: '60000',
  });
  redis = await connectRedis(kit.env.config.REDIS_URL);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await kit?.stop();
});

interface LoginReply {
  user: { email: string };
}

function login(email: string, password: string, headers: Record<string, string> = {}) {
  return httpCall<LoginReply & ApiError>(kit.url, 'POST', '/v1/auth/login', {
    body: { email, password },
    headers: { ...CSRF, ...headers },
  });
}

async function newAccount(email: string, password = 'right-password-1'): Promise<string> {
  const res = await kit.call<{ id: string }>('POST', '/v1/users', {
    body: { email, password, role: 'viewer' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

interface AuditRow {
  source_ip: string | null;
  after: { failures?: number; last_at?: string; password_rehashed?: boolean } | null;
  at: Date;
}
async function auditRows(action: string, target: string): Promise<AuditRow[]> {
  const r = await kit.db.query<AuditRow>(
    'SELECT source_ip, after, at FROM audit_log WHERE action = $1 AND target = $2 ORDER BY id',
    [action, target],
  );
  return r.rows;
}

describe('login limits per account', () => {
  it('after LOGIN_ACCOUNT_BURST failures: 429 LOGIN_THROTTLED with Retry-After, even with the right password', async () => {
    await newAccount('throttled@test.local');
    const from = viaConsole('198.51.100.1');
    for (let i = 0; i < 3; i++)
      expect((await login('throttled@test.local', 'wrong-password', from)).status).toBe(401);
    const refused = await login('throttled@test.local', 'right-password-1', from);
    expect(refused.status).toBe(429);
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(refused.body.error.code).toBe('LOGIN_THROTTLED');
    expect(refused.body.error.message).toMatch(
      /^too many failed logins for this account; try again in \d+ s$/,
    );
    const details = refused.body.error.details as { limited: string; retry_after_s: number };
    expect(details.limited).toBe('account');
    expect(details.retry_after_s).toBeGreaterThanOrEqual(1);
    expect(details.retry_after_s).toBeLessThanOrEqual(60);
    expect(refused.headers['retry-after']).toBe(String(details.retry_after_s));
    // The limit is the account's, whatever the address; other accounts are not affected.
    const elsewhere = await login(
      'throttled@test.local',
      'right-password-1',
      viaConsole('198.51.100.2'),
    );
    expect(elsewhere.status).toBe(429);
    expect((await login('viewer@test.local', 'viewer-password-1', from)).status).toBe(200);
  });

  it('tRPC auth.login: 429 TOO_MANY_REQUESTS with Retry-After too', async () => {
    const res = await httpCall<TrpcError>(kit.url, 'POST', '/trpc/auth.login', {
      body: { email: 'throttled@test.local', password: 'right-password-1' },
      headers: { ...CSRF, ...viaConsole('198.51.100.3') },
    });
    expect(res.status).toBe(429);
    expect(res.body.error.data.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('successful logins do not count, failures do', async () => {
    await newAccount('often@test.local');
    const from = viaConsole('198.51.100.4');
    for (let i = 0; i < 8; i++)
      expect((await login('often@test.local', 'right-password-1', from)).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await login('often@test.local', 'wrong-password', from)).status).toBe(401);
    expect((await login('often@test.local', 'right-password-1', from)).status).toBe(429);
  });

  it('guesses sent in parallel cannot slip past the limit', async () => {
    await newAccount('parallel@test.local');
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        login('parallel@test.local', `guess-${i}`, viaConsole(`198.51.100.${20 + i}`)),
      ),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
  });
});

describe('login limits per client address', () => {
  it('after LOGIN_ADDRESS_BURST failures on any accounts, the address is refused', async () => {
    const from = viaConsole('203.0.113.50');
    for (let i = 0; i < 6; i++)
      expect((await login(`nobody-${i}@test.local`, 'x-password', from)).status).toBe(401);
    const refused = await login('nobody-6@test.local', 'x-password', from);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/from this address/);
    expect(refused.body.error.details).toMatchObject({ limited: 'address' });
    // Even the right password of a real account, from that address.
    expect((await login('viewer@test.local', 'viewer-password-1', from)).status).toBe(429);
    // The same accounts from another address are still only wrong.
    expect(
      (await login('nobody-6@test.local', 'x-password', viaConsole('203.0.113.51'))).status,
    ).toBe(401);
  });

  it('counts an IPv6 /56 as one address (LOGIN_IPV6_PREFIX)', async () => {
    // Six /64s of 2001:db8:5::/56.
    for (let i = 1; i <= 6; i++) {
      const res = await login(
        `v6-${i}@test.local`,
        'x-password',
        viaConsole(`2001:db8:5:${i}::${i}`),
      );
      expect(res.status).toBe(401);
    }
    const same56 = await login(
      'v6-7@test.local',
      'x-password',
      viaConsole('2001:db8:5:ff:ffff::7'),
    );
    expect(same56.status).toBe(429);
    const next56 = await login('v6-7@test.local', 'x-password', viaConsole('2001:db8:5:100::1'));
    expect(next56.status).toBe(401);
  });
});

describe("the browser's address relayed by the console", () => {
  const failedFrom = async (email: string) =>
    (await auditRows('auth.loginFailed', email))[0]?.source_ip;

  it('is believed with the console’s credential (audit and limits use it)', async () => {
    await login('relayed@test.local', 'x-password', viaConsole('203.0.113.9'));
    expect(await failedFrom('relayed@test.local')).toBe('203.0.113.9');
    const ok = await login('viewer@test.local', 'viewer-password-1', viaConsole('2001:DB8::9'));
    expect(ok.status).toBe(200);
    const rows = await auditRows('auth.login', 'viewer@test.local');
    expect(rows[rows.length - 1]!.source_ip).toBe('2001:db8::9');
  });

  it('is ignored without the credential, with a wrong one, or when it is not an address', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['no-secret@test.local', { 'x-crawler-client-address': '203.0.113.10' }],
      ['wrong-secret@test.local', viaConsole('203.0.113.11', `${SECRET}x`)],
      ['not-an-ip@test.local', viaConsole('not-an-ip')],
    ];
    for (const [email, headers] of cases) {
      expect((await login(email, 'x-password', headers)).status).toBe(401);
      expect(await failedFrom(email), email).toBe('127.0.0.1');
    }
  });
});

describe('failed logins in the audit log', () => {
  it('one entry per account and address a minute, counting the failures', async () => {
    const email = 'counted@test.local';
    const [accountKey] = loginThrottleKeys(kit.env.config.REDIS_PREFIX, email, null);
    const a = viaConsole('192.0.2.70');
    for (let i = 0; i < 3; i++) expect((await login(email, `guess-${i}`, a)).status).toBe(401);
    await redis.del(accountKey); // let the account try on, to see the counting
    expect((await login(email, 'guess-3', viaConsole('192.0.2.71'))).status).toBe(401);
    let rows = await auditRows('auth.loginFailed', email);
    expect(rows.map((r) => [r.source_ip, r.after?.failures])).toEqual([
      ['192.0.2.70', 3],
      ['192.0.2.71', 1],
    ]);
    expect(Date.parse(rows[0]!.after!.last_at!)).toBeGreaterThanOrEqual(rows[0]!.at.getTime());
    // Throttled attempts check no password and write nothing.
    await login(email, 'guess-4', a);
    await login(email, 'guess-5', a);
    expect((await login(email, 'guess-6', a)).status).toBe(429);
    rows = await auditRows('auth.loginFailed', email);
    expect(rows.map((r) => r.after?.failures)).toEqual([5, 1]);
    // A minute later, a new entry.
    await kit.db.query(
      `UPDATE audit_log SET at = at - interval '61 seconds' WHERE action = 'auth.loginFailed' AND target = $1`,
      [email],
    );
    await redis.del(accountKey);
    expect((await login(email, 'guess-7', a)).status).toBe(401);
    rows = await auditRows('auth.loginFailed', email);
    expect(rows.map((r) => [r.source_ip, r.after?.failures])).toEqual([
      ['192.0.2.70', 5],
      ['192.0.2.71', 1],
      ['192.0.2.70', 1],
    ]);
  });
});

describe('password hashes made with weaker parameters', () => {
  it('still verify, and are hashed again at the configured cost on a successful login', async () => {
    const email = 'legacy@test.local';
    const old = await hashPassword('legacy-password-1', scryptParams(12));
    await kit.db.query(`INSERT INTO users (email, role, password_hash) VALUES ($1, 'viewer', $2)`, [
      email,
      old,
    ]);
    const updatedAt = async () =>
      (
        await kit.db.query<{ u: Date }>('SELECT updated_at AS u FROM users WHERE email = $1', [
          email,
        ])
      ).rows[0]!.u;
    const before = await updatedAt();
    expect((await login(email, 'wrong-password', viaConsole('192.0.2.80'))).status).toBe(401);
    const stored = async () =>
      (
        await kit.db.query<{ h: string }>('SELECT password_hash AS h FROM users WHERE email = $1', [
          email,
        ])
      ).rows[0]!.h;
    expect(await stored()).toBe(old); // a wrong password changes nothing

    expect((await login(email, 'legacy-password-1')).status).toBe(200);
    const rehashed = await stored();
    expect(rehashed).toMatch(/^scrypt\$16384\$8\$1\$/); // PASSWORD_SCRYPT_LOG2_N=14 in tests
    expect(await verifyPassword('legacy-password-1', rehashed)).toBe(true);
    expect(await updatedAt()).toEqual(before);
    const logins = await auditRows('auth.login', email);
    expect(logins[0]!.after).toMatchObject({ password_rehashed: true });

    expect((await login(email, 'legacy-password-1')).status).toBe(200);
    expect(await stored()).toBe(rehashed);
    expect((await auditRows('auth.login', email))[1]!.after).not.toHaveProperty(
      'password_rehashed',
    );
  });

  it('a hash stronger than the configured cost is kept as it is', async () => {
    const email = 'strong@test.local';
    const strong = await hashPassword('strong-password-1', scryptParams(15));
    await kit.db.query(`INSERT INTO users (email, role, password_hash) VALUES ($1, 'viewer', $2)`, [
      email,
      strong,
    ]);
    expect((await login(email, 'strong-password-1')).status).toBe(200);
    const r = await kit.db.query<{ h: string }>(
      'SELECT password_hash AS h FROM users WHERE email = $1',
      [email],
    );
    expect(r.rows[0]!.h).toBe(strong);
  });
});

describe('token lineage', () => {
  interface Created {
    token: { id: string; expires_at: string | null; parent_token_id: string | null };
    secret: string;
  }
  const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
  const create = (as: { token: string } | 'viewer', body: object) =>
    kit.call<Created & ApiError>('POST', '/v1/tokens', { as, body });
  const works = async (secret: string) =>
    (await kit.call('GET', '/v1/auth/me', { as: { token: secret } })).status;

  it('a token can only create tokens that expire no later than itself', async () => {
    const parent = await create('viewer', { name: 'parent', expires_at: inHours(2) });
    expect(parent.status).toBe(200);
    const p = { token: parent.body.secret };
    const parentExpiry = parent.body.token.expires_at!;
    for (const body of [
      { name: 'forever' },
      { name: 'forever-null', expires_at: null },
      { name: 'later', expires_at: inHours(3) },
    ]) {
      const res = await create(p, body);
      expect(res.status, body.name).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain(
        'a token can only create tokens that expire no later than itself',
      );
      expect(res.body.error.details).toEqual({ max_expires_at: parentExpiry });
    }
    const child = await create(p, { name: 'child', expires_at: inHours(1) });
    expect(child.status).toBe(200);
    expect(child.body.token.parent_token_id).toBe(parent.body.token.id);
    const same = await create(p, { name: 'same', expires_at: parentExpiry });
    expect(same.status).toBe(200);
    expect(await kit.count("api_tokens WHERE name IN ('forever', 'forever-null', 'later')")).toBe(
      0,
    );
  });

  it('tokens made in a session have no parent; a token that never expires makes any', async () => {
    const cookie = await kit.login('viewer@test.local', 'viewer-password-1');
    const res = await httpCall<Created>(kit.url, 'POST', '/v1/tokens', {
      body: { name: 'from-session' },
      headers: { cookie, ...CSRF },
    });
    expect(res.status).toBe(200);
    expect(res.body.token.parent_token_id).toBeNull();
    const child = await create({ token: res.body.secret }, { name: 'unbounded-child' });
    expect(child.status).toBe(200);
    expect(child.body.token.expires_at).toBeNull();
  });

  it('revoking a token revokes the tokens it created, transitively, and only those', async () => {
    const root = await create('viewer', { name: 'root' });
    const r = { token: root.body.secret };
    const a = await create(r, { name: 'a' });
    const b = await create(r, { name: 'b' });
    const a1 = await create({ token: a.body.secret }, { name: 'a1' });
    const unrelated = await create('viewer', { name: 'unrelated' });
    for (const t of [root, a, b, a1, unrelated]) expect(await works(t.body.secret)).toBe(200);

    // Revoking a in the middle takes a1 along, not its parent or sibling.
    const revokeA = await kit.call<{ revoked_at: string | null; revoked_with_it: string[] }>(
      'DELETE',
      `/v1/tokens/${a.body.token.id}`,
      { as: 'viewer' },
    );
    expect(revokeA.status).toBe(200);
    expect(revokeA.body.revoked_with_it).toEqual([a1.body.token.id]);
    expect(await works(a.body.secret)).toBe(401);
    expect(await works(a1.body.secret)).toBe(401);
    expect(await works(root.body.secret)).toBe(200);
    expect(await works(b.body.secret)).toBe(200);

    const revokeRoot = await kit.call<{ revoked_with_it: string[] }>(
      'DELETE',
      `/v1/tokens/${root.body.token.id}`,
      { as: 'viewer' },
    );
    expect(revokeRoot.body.revoked_with_it).toEqual([b.body.token.id]);
    for (const t of [root, a, b, a1]) expect(await works(t.body.secret)).toBe(401);
    expect(await works(unrelated.body.secret)).toBe(200);

    // Each revocation is audited; those taken along name the token that took them.
    const audit = await kit.db.query<{ target: string; after: { revoked_with?: string } }>(
      `SELECT target, after FROM audit_log WHERE action = 'tokens.revoke' AND target = ANY($1) ORDER BY id`,
      [[root, a, b, a1].map((t) => t.body.token.id)],
    );
    expect(audit.rows.map((x) => [x.target, x.after.revoked_with ?? null])).toEqual([
      [a1.body.token.id, a.body.token.id],
      [a.body.token.id, null],
      [b.body.token.id, root.body.token.id],
      [root.body.token.id, null],
    ]);
  });

  it('a revoked token creates nothing', async () => {
    const t = await create('viewer', { name: 'short-lived' });
    await kit.call('DELETE', `/v1/tokens/${t.body.token.id}`, { as: 'viewer' });
    const res = await create({ token: t.body.secret }, { name: 'orphan' });
    expect(res.status).toBe(401);
    expect(await kit.count("api_tokens WHERE name = 'orphan'")).toBe(0);
  });
});

describe("a host's audit entries", () => {
  interface HostAnswer {
    audit: Array<{ actor: string | null; action: string; after: unknown }>;
  }

  it('name who made each change for operators and admins, not for viewers', async () => {
    const host = 'redacted-audit.example';
    const put = await kit.call('PUT', `/v1/hosts/${host}`, {
      as: 'operator',
      body: { blocked: true },
    });
    expect(put.status).toBe(200);
    const asViewer = await kit.call<HostAnswer>('GET', `/v1/hosts/${host}`, { as: 'viewer' });
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.audit).toHaveLength(1);
    expect(asViewer.body.audit[0]).toMatchObject({ actor: null, action: 'hosts.update' });
    expect(JSON.stringify(asViewer.body.audit)).not.toContain('operator@test.local');
    for (const role of ['operator', 'admin'] as const) {
      const res = await kit.call<HostAnswer>('GET', `/v1/hosts/${host}`, { as: role });
      expect(res.body.audit[0]!.actor, role).toBe('token operator-token (operator@test.local)');
    }
    const trpc = await kit.call<{ result: { data: HostAnswer } }>(
      'GET',
      `/trpc/hosts.get?input=${encodeURIComponent(JSON.stringify({ host }))}`,
      { as: 'viewer' },
    );
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.audit[0]!.actor).toBeNull();
  });
});
