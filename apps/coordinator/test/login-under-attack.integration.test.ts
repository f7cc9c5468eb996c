import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { loginThrottleKeys } from '../src/auth/login-throttle';
import { startAuthKit, type AuthKit } from './auth-kit';
import { httpCall, type ApiError } from './http-call';

// Login under attack (issue 22), against real coordinators, Postgres and Redis: a bounded,
// fair queue for password hashes (429 LOGIN_BUSY beyond it, and a real login still in time
// during a flood of decoys), the installation-wide login limit, tokens made in a console
// session ending with a password change, and tRPC batches bounded by TRPC_MAX_BATCH_SIZE.
const SECRET = 'console-secret-for-tests-0123456789abcdef';
const CSRF = { 'x-crawler-csrf': '1' };
/** Headers of a call relayed by the console for a browser at `address`. */
const viaConsole = (address: string) => ({
  'x-crawler-console': SECRET,
  'x-crawler-client-address': address,
});
/** What the console waits for the coordinator (apps/console/lib/server/coordinator.ts). */
const CONSOLE_TIMEOUT_MS = 10_000;

interface LoginReply extends ApiError {
  user: { email: string };
}

function loginAt(kit: AuthKit, email: string, password: string, address: string) {
  return httpCall<LoginReply>(kit.url, 'POST', '/v1/auth/login', {
    body: { email, password },
    headers: { ...CSRF, ...viaConsole(address) },
  });
}

describe('the password-hash queue under a flood of decoy logins', () => {
  let kit: AuthKit;
  let redis: RedisClient;

  beforeAll(async () => {
    kit = await startAuthKit('login-busy', {
      CONSOLE_SECRET: SECRET,
      // The production cost: a hash takes a few hundred ms, so a queue of decoys is slow.
      PASSWORD_SCRYPT_LOG2_N: '17',
      LOGIN_HASH_QUEUE_MAX: '4',
      // Only the queue stands in the decoys' way here.
      LOGIN_ADDRESS_BURST: '1000',
      LOGIN_ADDRESS_REFILL_MS: '60000',
      LOGIN_GLOBAL_BURST: '0',
    });
    redis = await connectRedis(kit.env.config.REDIS_URL);
  }, 120_000);

  afterAll(async () => {
    redis?.disconnect();
    await kit?.stop();
  });

  it('answers decoys beyond the queue 429 LOGIN_BUSY at once; a real login still succeeds in time', async () => {
    // Decoys from 60 /64s of one /56 (one client), each for an unknown account: each costs a
    // hash at OWASP's cost. Queued without a bound, the last would wait 30 hash rounds.
    const decoyFrom = (i: number) => `2001:db8:77:${(0x10 + i).toString(16)}::${i + 1}`;
    expect((await loginAt(kit, 'warm-up@test.local', 'x-password', decoyFrom(99))).status).toBe(
      401,
    ); // the unknown-email decoy hash exists from here on
    let firstBusy!: () => void;
    const busySeen = new Promise<void>((resolve) => (firstBusy = resolve));
    const decoys = Array.from({ length: 60 }, (_, i) =>
      loginAt(kit, `decoy-${i}@test.local`, 'x-password', decoyFrom(i)).then((r) => {
        if (r.status === 429) firstBusy();
        return r;
      }),
    );
    await Promise.race([
      busySeen,
      Promise.all(decoys).then(() => {
        throw new Error('every decoy waited for its hash: the queue has no bound');
      }),
    ]);
    const started = Date.now();
    const real = await loginAt(kit, 'viewer@test.local', 'viewer-password-1', '198.51.100.77');
    const tookMs = Date.now() - started;
    expect(real.status, JSON.stringify(real.body)).toBe(200);
    expect(tookMs).toBeLessThan(CONSOLE_TIMEOUT_MS);

    const replies = await Promise.all(decoys);
    const busy = replies.filter((r) => r.status === 429);
    const checked = replies.filter((r) => r.status === 401);
    expect(busy.length + checked.length).toBe(60);
    expect(busy.length).toBeGreaterThanOrEqual(10);
    for (const r of busy) {
      expect(r.body.error.code).toBe('LOGIN_BUSY');
      expect(r.body.error.message).toMatch(
        /^too many logins are waiting for their password check; try again in \d+ s$/,
      );
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // A login refused as busy checked no password: its attempt was given back, so the /56 has
    // spent one attempt per checked decoy (and the warm-up), a minute each.
    const [, addressKey] = loginThrottleKeys(
      kit.env.config.REDIS_PREFIX,
      'any@test.local',
      decoyFrom(0),
      56,
    );
    const spent = Math.round((await redis.pttl(addressKey)) / 60_000);
    expect(spent).toBe(checked.length + 1);
  }, 120_000);

  it('over tRPC too: 429 TOO_MANY_REQUESTS with appCode LOGIN_BUSY', async () => {
    const decoys = Array.from({ length: 20 }, (_, i) =>
      httpCall<{ error: { data: { code: string; appCode: string } } }>(
        kit.url,
        'POST',
        '/trpc/auth.login',
        {
          body: { email: `trpc-decoy-${i}@test.local`, password: 'x-password' },
          headers: { ...CSRF, ...viaConsole(`2001:db8:78::${i + 1}`) },
        },
      ),
    );
    const busy = (await Promise.all(decoys)).filter((r) => r.status === 429);
    expect(busy.length).toBeGreaterThan(0);
    for (const r of busy) {
      expect(r.body.error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', appCode: 'LOGIN_BUSY' });
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  }, 120_000);
});

describe('limits, session tokens and batches', () => {
  let kit: AuthKit;
  let redis: RedisClient;

  beforeAll(async () => {
    kit = await startAuthKit('login-limits', {
      CONSOLE_SECRET: SECRET,
      LOGIN_ADDRESS_BURST: '2',
      LOGIN_ADDRESS_REFILL_MS: '60000',
      LOGIN_GLOBAL_BURST: '4',
      LOGIN_GLOBAL_REFILL_MS: '60000',
      TRPC_MAX_BATCH_SIZE: '10',
    });
    redis = await connectRedis(kit.env.config.REDIS_URL);
  }, 120_000);

  afterAll(async () => {
    redis?.disconnect();
    await kit?.stop();
  });

  it('counts IPv6 clients by their /56: the same /56 shares a limit, the next /56 does not', async () => {
    const at = (address: string) => loginAt(kit, 'nobody@test.local', 'x-password', address);
    expect((await at('2001:db8:9:a01::1')).status).toBe(401);
    expect((await at('2001:db8:9:aff::2')).status).toBe(401);
    // A third /64 of 2001:db8:9:a00::/56: out of attempts.
    const same = await at('2001:db8:9:a42::3');
    expect(same.status).toBe(429);
    expect(same.body.error.details).toMatchObject({ limited: 'address' });
    // The neighbouring /56 is another client.
    expect((await at('2001:db8:9:b00::1')).status).toBe(401);
  });

  it('failed logins from many addresses spend the installation’s limit: then every login is 429', async () => {
    const [, , globalKey] = loginThrottleKeys(kit.env.config.REDIS_PREFIX, 'x', null);
    await redis.del(globalKey); // what the test before spent
    for (let i = 0; i < 4; i++)
      expect((await loginAt(kit, `g${i}@test.local`, 'x-password', `203.0.113.${i}`)).status).toBe(
        401,
      );
    const refused = await loginAt(kit, 'viewer@test.local', 'viewer-password-1', '192.0.2.44');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('LOGIN_THROTTLED');
    expect(refused.body.error.message).toMatch(/^too many failed logins on this installation;/);
    expect(refused.body.error.details).toMatchObject({ limited: 'global' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50);
    // The installation's limit is one key, whatever the account and address.
    await redis.del(globalKey);
    expect(
      (await loginAt(kit, 'viewer@test.local', 'viewer-password-1', '192.0.2.44')).status,
    ).toBe(200);
  });

  describe('tokens made in a console session', () => {
    interface Created extends ApiError {
      token: { id: string; created_in_session: boolean; parent_token_id: string | null };
      secret: string;
    }
    const works = async (secret: string) =>
      (await kit.call('GET', '/v1/auth/me', { as: { token: secret } })).status;
    const createWithCookie = (cookie: string, name: string) =>
      httpCall<Created>(kit.url, 'POST', '/v1/tokens', {
        body: { name },
        headers: { cookie, ...CSRF },
      });

    it('end when the session’s user’s password changes, with their descendants; nothing else does', async () => {
      const email = 'minted@test.local';
      const user = await kit.call<{ id: string }>('POST', '/v1/users', {
        body: { email, password: 'minted-password-1', role: 'operator' },
      });
      expect(user.status).toBe(200);
      const cookie = await kit.login(email, 'minted-password-1');
      const inSession = await createWithCookie(cookie, 'in-session');
      expect(inSession.status, JSON.stringify(inSession.body)).toBe(200);
      expect(inSession.body.token.created_in_session).toBe(true);
      const child = await kit.call<Created>('POST', '/v1/tokens', {
        as: { token: inSession.body.secret },
        body: { name: 'child-of-session-token' },
      });
      expect(child.body.token.parent_token_id).toBe(inSession.body.token.id);
      expect(child.body.token.created_in_session).toBe(false);
      // Made with an API token of the user's, outside any session: not linked to one.
      const byAdmin = await kit.call<Created>('POST', '/v1/tokens', {
        body: { name: 'made-by-admin-token', user_id: user.body.id },
      });
      const direct = await kit.call<Created>('POST', '/v1/tokens', {
        as: { token: byAdmin.body.secret },
        body: { name: 'made-with-a-token' },
      });
      expect(direct.body.token.created_in_session).toBe(false);
      // Logging out ends the session, not the tokens made in it.
      const out = await httpCall(kit.url, 'POST', '/v1/auth/logout', {
        headers: { cookie, ...CSRF },
      });
      expect(out.status).toBe(200);
      expect(await works(inSession.body.secret)).toBe(200);
      // A second session, and another user's session token.
      const cookie2 = await kit.login(email, 'minted-password-1');
      const inSession2 = await createWithCookie(cookie2, 'in-session-2');
      const otherCookie = await kit.login('viewer@test.local', 'viewer-password-1');
      const othersToken = await createWithCookie(otherCookie, 'someone-elses');
      for (const t of [inSession, child, direct, inSession2, othersToken])
        expect(await works(t.body.secret)).toBe(200);

      const changed = await kit.call('PATCH', `/v1/users/${user.body.id}`, {
        body: { password: 'minted-password-2' },
      });
      expect(changed.status).toBe(200);
      for (const t of [inSession, child, inSession2]) {
        const res = await kit.call<ApiError>('GET', '/v1/auth/me', {
          as: { token: t.body.secret },
        });
        expect(res.status, t.body.token.id).toBe(401);
        expect(res.body.error.message).toBe('this API token was revoked');
      }
      for (const t of [direct, byAdmin, othersToken]) expect(await works(t.body.secret)).toBe(200);
      // Each revocation is audited, saying why; the password change counts them.
      const audit = await kit.db.query<{ target: string; after: { revoked_because?: string } }>(
        `SELECT target, after FROM audit_log WHERE action = 'tokens.revoke' AND target = ANY($1) ORDER BY id`,
        [[inSession, child, inSession2].map((t) => t.body.token.id)],
      );
      expect(audit.rows.map((r) => [r.target, r.after.revoked_because])).toEqual(
        [inSession, child, inSession2].map((t) => [t.body.token.id, 'password_changed']),
      );
      const update = await kit.db.query<{ after: { tokens_revoked?: number } }>(
        `SELECT after FROM audit_log WHERE action = 'users.update' AND target = $1`,
        [email],
      );
      expect(update.rows.map((r) => r.after.tokens_revoked)).toEqual([3]);
      // Changing anything but the password revokes nothing more.
      const renamed = await kit.call('PATCH', `/v1/users/${user.body.id}`, {
        body: { name: 'Minted' },
      });
      expect(renamed.status).toBe(200);
      const cookie3 = await kit.login(email, 'minted-password-2');
      const inSession3 = await createWithCookie(cookie3, 'in-session-3');
      await kit.call('PATCH', `/v1/users/${user.body.id}`, { body: { role: 'viewer' } });
      expect(await works(inSession3.body.secret)).toBe(200);
    });
  });

  describe('tRPC batches', () => {
    interface TrpcBatchError {
      error: {
        message: string;
        data: { code: string; httpStatus: number; appCode: string; details: unknown };
      };
    }
    const batch = (n: number, procedure = 'auth.me') =>
      Array.from({ length: n }, () => procedure).join(',');
    const bearer = () => ({ authorization: `Bearer ${kit.accounts.viewer.token}` });

    it('up to TRPC_MAX_BATCH_SIZE calls run; one more is refused with 413 BATCH_TOO_LARGE', async () => {
      const ok = await httpCall<unknown[]>(kit.url, 'GET', `/trpc/${batch(10)}?batch=1`, {
        headers: bearer(),
      });
      expect(ok.status).toBe(200);
      expect(ok.body).toHaveLength(10);

      const over = await httpCall<TrpcBatchError>(kit.url, 'GET', `/trpc/${batch(11)}?batch=1`, {
        headers: bearer(),
      });
      expect(over.status).toBe(413);
      expect(over.body.error.data).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        httpStatus: 413,
        appCode: 'BATCH_TOO_LARGE',
        details: { calls: 11, max_batch_size: 10 },
      });
      expect(over.body.error.message).toBe(
        "a batch of 11 calls is more than the 10 this coordinator takes in one request (TRPC_MAX_BATCH_SIZE); send at most 10 (httpBatchLink's maxItems)",
      );
    });

    it('counts the calls as tRPC reads the path (encoded commas too), for mutations as well', async () => {
      const encoded = await httpCall<TrpcBatchError>(
        kit.url,
        'GET',
        `/trpc/${batch(11).replaceAll(',', '%2C')}?batch=1`,
        { headers: bearer() },
      );
      expect(encoded.status).toBe(413);
      expect(encoded.body.error.data.appCode).toBe('BATCH_TOO_LARGE');
      const body = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [String(i), {}]));
      const mutations = await httpCall<TrpcBatchError>(
        kit.url,
        'POST',
        `/trpc/${batch(12, 'auth.logout')}?batch=1`,
        { body, headers: CSRF },
      );
      expect(mutations.status).toBe(413);
      expect(mutations.body.error.data.details).toEqual({ calls: 12, max_batch_size: 10 });
      // A single call's path is never a batch, however it looks.
      const single = await httpCall<TrpcBatchError>(kit.url, 'GET', `/trpc/${batch(11)}`, {
        headers: bearer(),
      });
      expect(single.status).not.toBe(413);
    });
  });
});
