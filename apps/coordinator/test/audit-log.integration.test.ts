import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthKit, type AuthKit } from './auth-kit';
import { httpCall, type ApiError } from './http-call';

// Every change is in the audit log with who, what, before and after, written in the same
// transaction as the change where the change is in Postgres.
let kit: AuthKit;
let operatorTokenId: string;

interface Entry {
  id: string;
  at: string;
  actor: { user_id: string | null; token_id: string | null; label: string };
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  request_id: string | null;
  source_ip: string | null;
}
interface Page {
  items: Entry[];
  next_cursor: string | null;
}

beforeAll(async () => {
  kit = await startAuthKit('audit-log');
  operatorTokenId = (
    await kit.db.query<{ id: string }>(`SELECT id FROM api_tokens WHERE name = 'operator-token'`)
  ).rows[0]!.id;
}, 60_000);

afterAll(async () => {
  await kit?.stop();
});

/** The newest entry of an action (through the API, as an operator would read it). */
async function latest(action: string, target?: string): Promise<Entry> {
  const q = new URLSearchParams({ action, limit: '1', ...(target ? { target } : {}) });
  const res = await kit.call<Page>('GET', `/v1/audit?${q.toString()}`, { as: 'operator' });
  expect(res.status).toBe(200);
  expect(res.body.items.length, `${action} ${target ?? ''}`).toBe(1);
  return res.body.items[0]!;
}

describe('each change writes one entry with its actor, before and after', () => {
  it('seeds.add: the operator token, the request id and the source address', async () => {
    const res = await kit.call('POST', '/v1/seeds', {
      as: 'operator',
      body: { urls: ['http://audit-seed.example/a', 'http://audit-seed.example/b', 'bad url'] },
      headers: { 'x-request-id': 'req-seeds-1' },
    });
    expect(res.status).toBe(400); // one invalid URL; the two valid ones are applied
    expect(res.headers['x-request-id']).toBe('req-seeds-1');
    const e = await latest('seeds.add', 'audit-seed.example');
    expect(e).toMatchObject({
      actor: {
        user_id: kit.accounts.operator.id,
        token_id: operatorTokenId,
        label: 'token operator-token (operator@test.local)',
      },
      target: 'audit-seed.example',
      before: null,
      after: {
        priority: 1,
        list: null,
        valid: 2,
        added: 2,
        rejected: 1,
        hosts: 1,
        urls: ['http://audit-seed.example/a', 'http://audit-seed.example/b'],
      },
      request_id: 'req-seeds-1',
    });
    expect(e.source_ip).toMatch(/127\.0\.0\.1$/);
  });

  it('hosts.update: before is the previous policy (null at first), after the new one', async () => {
    const host = 'audit-host.example';
    await kit.call('PUT', `/v1/hosts/${host}`, { as: 'operator', body: { blocked: true } });
    const first = await latest('hosts.update', host);
    expect(first.before).toBeNull();
    expect(first.after).toEqual({
      rate_limit_rps: null,
      blocked: true,
      daily_budget: null,
      allowlisted: null,
      max_connections: null,
    });
    await kit.call('PUT', `/v1/hosts/${host}`, { as: 'operator', body: { rate_limit_rps: 2 } });
    const second = await latest('hosts.update', host);
    expect(second.before).toEqual({
      rate_limit_rps: null,
      blocked: true,
      daily_budget: null,
      allowlisted: null,
      max_connections: null,
    });
    expect(second.after).toEqual({
      rate_limit_rps: 2,
      blocked: true,
      daily_budget: null,
      allowlisted: null,
      max_connections: null,
    });
    expect(BigInt(second.id)).toBeGreaterThan(BigInt(first.id));
  });

  it('hosts.update over tRPC is audited the same way', async () => {
    const res = await httpCall(kit.url, 'POST', '/trpc/hosts.update', {
      body: { host: 'audit-trpc.example', patch: { blocked: true } },
      headers: { authorization: `Bearer ${kit.accounts.operator.token}` },
    });
    expect(res.status).toBe(200);
    const e = await latest('hosts.update', 'audit-trpc.example');
    expect(e.actor.label).toBe('token operator-token (operator@test.local)');
    expect(e.after).toEqual({
      rate_limit_rps: null,
      blocked: true,
      daily_budget: null,
      allowlisted: null,
      max_connections: null,
    });
  });

  it('deadLetters.requeue records what it asked for and how many came back', async () => {
    await kit.call('POST', '/v1/dead-letters/requeue', {
      as: 'operator',
      body: { host: 'audit-dead.example', limit: 5 },
    });
    const e = await latest('deadLetters.requeue', 'audit-dead.example');
    expect(e.after).toEqual({ limit: 5, requeued: 0 });
  });

  it('users.create and users.update: the account before and after, never the password', async () => {
    const made = await kit.call<{ id: string }>('POST', '/v1/users', {
      body: { email: 'audited@test.local', password: 'audited-password', role: 'viewer' },
    });
    const created = await latest('users.create', 'audited@test.local');
    expect(created.actor.label).toBe('token ADMIN_TOKEN (admin@test.local)');
    expect(created.before).toBeNull();
    expect(created.after).toEqual({
      id: made.body.id,
      email: 'audited@test.local',
      name: '',
      role: 'viewer',
      disabled: false,
    });
    await kit.call('PATCH', `/v1/users/${made.body.id}`, {
      body: { role: 'operator', password: 'audited-password-2' },
    });
    const updated = await latest('users.update', 'audited@test.local');
    expect(updated.before).toMatchObject({ role: 'viewer' });
    expect(updated.after).toMatchObject({ role: 'operator', password_changed: true });
  });

  it('tokens.create and tokens.revoke: the token’s prefix, never its secret', async () => {
    const made = await kit.call<{ token: { id: string; prefix: string }; secret: string }>(
      'POST',
      '/v1/tokens',
      { as: 'viewer', body: { name: 'audited-token' } },
    );
    const id = made.body.token.id;
    const created = await latest('tokens.create', id);
    expect(created.actor.user_id).toBe(kit.accounts.viewer.id);
    expect(created.after).toMatchObject({
      id,
      name: 'audited-token',
      role: 'viewer',
      prefix: made.body.token.prefix,
      revoked_at: null,
    });
    await kit.call('DELETE', `/v1/tokens/${id}`, { as: 'viewer' });
    const revoked = await latest('tokens.revoke', id);
    expect(revoked.before).toMatchObject({ revoked_at: null });
    expect((revoked.after as { revoked_at: string | null }).revoked_at).not.toBeNull();
    // Revoking again changes nothing and is not audited again.
    await kit.call('DELETE', `/v1/tokens/${id}`, { as: 'viewer' });
    expect((await latest('tokens.revoke', id)).id).toBe(revoked.id);
  });

  it('auth.login, auth.loginFailed and auth.logout', async () => {
    const csrf = { 'x-crawler-csrf': '1' };
    await httpCall(kit.url, 'POST', '/v1/auth/login', {
      body: { email: 'viewer@test.local', password: 'not-the-password' },
      headers: csrf,
    });
    const failed = await latest('auth.loginFailed', 'viewer@test.local');
    expect(failed.actor).toEqual({ user_id: null, token_id: null, label: 'anonymous' });
    const cookie = await kit.login('viewer@test.local', 'viewer-password-1');
    const login = await latest('auth.login', 'viewer@test.local');
    expect(login.actor).toEqual({
      user_id: kit.accounts.viewer.id,
      token_id: null,
      label: 'viewer@test.local',
    });
    await httpCall(kit.url, 'POST', '/v1/auth/logout', { headers: { cookie, ...csrf } });
    expect((await latest('auth.logout', 'viewer@test.local')).actor.label).toBe(
      'viewer@test.local',
    );
  });

  it('the start-up bootstrap is audited as the system', async () => {
    const e = await latest('users.create', 'admin@test.local');
    expect(e.actor).toEqual({ user_id: null, token_id: null, label: 'system' });
    expect(e.request_id).toBeNull();
  });

  it('no entry holds a password, a password hash or a token secret', async () => {
    const dump = JSON.stringify((await kit.db.query('SELECT * FROM audit_log')).rows);
    expect(dump).not.toContain('scrypt$');
    expect(dump).not.toContain('password_hash');
    for (const a of Object.values(kit.accounts)) {
      expect(dump).not.toContain(a.token);
      expect(dump).not.toContain(a.password);
    }
    expect(dump).not.toContain('audited-password');
  });
});

describe('a change and its entry commit together', () => {
  // A trigger makes the audit insert fail for one target: the change must roll back with it.
  beforeAll(async () => {
    await kit.db.query(`CREATE FUNCTION refuse_audit() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'audit refused for test'; END $$ LANGUAGE plpgsql`);
    await kit.db.query(`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW
      WHEN (NEW.target IN ('atomic.example', 'atomic@test.local')) EXECUTE FUNCTION refuse_audit()`);
  });
  afterAll(async () => {
    await kit.db.query('DROP TRIGGER refuse_audit ON audit_log');
    await kit.db.query('DROP FUNCTION refuse_audit');
  });

  it('a host policy is not stored (nor pushed to the frontier) when its entry fails', async () => {
    const res = await kit.call<ApiError>('PUT', '/v1/hosts/atomic.example', {
      as: 'operator',
      body: { blocked: true },
    });
    expect(res.status).toBe(500);
    const rows = await kit.db.query(`SELECT 1 FROM host_policies WHERE host = 'atomic.example'`);
    expect(rows.rowCount).toBe(0);
    const state = await kit.coordinator.services.frontier.hostState('atomic.example');
    expect(state.fields.blocked).toBeUndefined();
  });

  it('a user is not created when its entry fails', async () => {
    const res = await kit.call('POST', '/v1/users', {
      body: { email: 'atomic@test.local', password: 'atomic-password', role: 'viewer' },
    });
    expect(res.status).toBe(500);
    const rows = await kit.db.query(`SELECT 1 FROM users WHERE email = 'atomic@test.local'`);
    expect(rows.rowCount).toBe(0);
  });
});

describe('GET /v1/audit', () => {
  it('pages newest first with cursor and limit, without gaps or repeats', async () => {
    const all = await kit.count('audit_log');
    const ids: bigint[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 200; i++) {
      const q: string = cursor ? `&cursor=${cursor}` : '';
      const page: { body: Page } = await kit.call<Page>('GET', `/v1/audit?limit=3${q}`);
      ids.push(...page.body.items.map((e) => BigInt(e.id)));
      cursor = page.body.next_cursor;
      if (!cursor) break;
    }
    expect(ids.length).toBe(all);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! < ids[i - 1]!).toBe(true);
  });

  it('filters by target and by action', async () => {
    const byTarget = await kit.call<Page>('GET', '/v1/audit?target=audit-host.example');
    expect(byTarget.body.items.map((e) => e.action)).toEqual(['hosts.update', 'hosts.update']);
    const byAction = await kit.call<Page>('GET', '/v1/audit?action=tokens.revoke&limit=500');
    expect(byAction.body.items.length).toBeGreaterThan(0);
    expect(byAction.body.items.every((e) => e.action === 'tokens.revoke')).toBe(true);
  });

  it('is closed to viewers', async () => {
    const res = await kit.call<ApiError>('GET', '/v1/audit', { as: 'viewer' });
    expect(res.status).toBe(403);
  });
});
