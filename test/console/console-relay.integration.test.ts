import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { startAuthKit, type AuthKit } from '../../apps/coordinator/test/auth-kit';
import { buildConsoleIfStale, startConsole, type ConsoleServer } from './console-server';

// The console's server in front of a real coordinator: it tells the coordinator which browser
// signed in (with its CONSOLE_SECRET), so login limits and the audit log see the browser's
// address — not the console's, nor one the browser made up — and it refuses oversized bodies
// before reading them. The "browser" connects from 127.0.0.2, the console from 127.0.0.1.
const SECRET = 'console-relay-secret-0123456789abcdefghij';
const BROWSER = '127.0.0.2';
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

let kit: AuthKit;
let consoleServer: ConsoleServer;

beforeAll(async () => {
  await buildConsoleIfStale();
  kit = await startAuthKit('console-relay', {
    CONSOLE_SECRET: SECRET,
    LOGIN_ACCOUNT_BURST: '2',
    LOGIN_ADDRESS_BURST: '100',
  });
  consoleServer = await startConsole(kit.url, { CONSOLE_SECRET: SECRET });
}, 240_000);

afterAll(async () => {
  await consoleServer?.stop();
  await kit?.stop();
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** /api/session's errors carry `code`; the tRPC relay's, `data.appCode`. */
  body: {
    error?: { code: string | number; message: string; data?: { appCode?: string } };
  } & Record<string, unknown>;
}

/**
 * One request from the "browser" address. `chunks` streams the body in pieces without a
 * Content-Length (unless a header gives one); the answer may come before it is all sent.
 */
function browserCall(
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string; chunks?: Buffer[] } = {},
): Promise<Reply> {
  const url = new URL(path, consoleServer.url);
  const headers: Record<string, string> = { ...SAME_ORIGIN, ...opts.headers };
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] ??= String(Buffer.byteLength(opts.body));
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        localAddress: BROWSER,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: (text ? JSON.parse(text) : {}) as Reply['body'],
          });
        });
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (opts.chunks) {
      const pieces = [...opts.chunks];
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined || answered || req.destroyed) return void req.end();
        if (req.write(piece)) setImmediate(next);
        else req.once('drain', next);
      };
      next();
    } else req.end(opts.body);
  });
}

const signIn = (email: string, password: string, headers: Record<string, string> = {}) =>
  browserCall('POST', '/api/session', { body: JSON.stringify({ email, password }), headers });

async function failedLoginSource(email: string): Promise<string | null> {
  const r = await kit.db.query<{ source_ip: string | null }>(
    `SELECT source_ip FROM audit_log WHERE action = 'auth.loginFailed' AND target = $1`,
    [email],
  );
  return r.rows[0]?.source_ip ?? null;
}

describe("the browser's address", () => {
  it('reaches the coordinator’s audit log, whatever address headers the browser sends', async () => {
    const spoofed = {
      'x-forwarded-for': '203.0.113.66',
      'x-crawler-console-peer': '203.0.113.67',
      'x-crawler-client-address': '203.0.113.68',
      'x-crawler-console': 'guessed-secret',
    };
    const res = await signIn('nobody@test.local', 'wrong-password', spoofed);
    expect(res.status).toBe(401);
    expect(await failedLoginSource('nobody@test.local')).toBe(BROWSER);
  });

  it('is what login limits count: a throttled sign-in is a 429 with Retry-After', async () => {
    await kit.call('POST', '/v1/users', {
      body: { email: 'limited@test.local', password: 'right-password-1', role: 'viewer' },
    });
    for (let i = 0; i < 2; i++)
      expect((await signIn('limited@test.local', 'wrong-password')).status).toBe(401);
    const refused = await signIn('limited@test.local', 'right-password-1');
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('LOGIN_THROTTLED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['set-cookie']).toBeUndefined();
  });
});

describe('request bodies', () => {
  let cookie: string;
  beforeAll(async () => {
    const res = await signIn('viewer@test.local', 'viewer-password-1');
    expect(res.status).toBe(200);
    cookie = (res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('console_session='))!
      .split(';')[0]!;
  });

  it('a sign-in over 16 KiB is refused (413) by its Content-Length', async () => {
    const body = JSON.stringify({ email: 'viewer@test.local', password: 'x'.repeat(20_000) });
    const res = await signIn('unused@test.local', 'unused', {});
    expect(res.status).toBe(401); // a normal one is read
    const big = await browserCall('POST', '/api/session', { body });
    expect(big.status).toBe(413);
    expect(big.body.error).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The request is too large (16 KiB at most).',
    });
  });

  it('a relayed body over 2 MiB is refused (413), declared or streamed without a length', async () => {
    const headers = { cookie, 'content-type': 'application/json' };
    const declared = await browserCall('POST', '/api/trpc/seeds.add', {
      headers: { ...headers, 'content-length': String(3 * 1024 * 1024) },
      chunks: [Buffer.alloc(64 * 1024, 0x20)],
    });
    expect(declared.status).toBe(413);
    expect(declared.body.error?.data?.appCode).toBe('PAYLOAD_TOO_LARGE');
    const streamed = await browserCall('POST', '/api/trpc/seeds.add', {
      headers,
      chunks: Array.from({ length: 48 }, () => Buffer.alloc(64 * 1024, 0x20)),
    });
    expect(streamed.status).toBe(413);
    expect(streamed.body.error?.message).toBe('The request is too large (2 MiB at most).');
    // Within the limit, the same relay works.
    const ok = await browserCall('POST', '/api/trpc/hosts.update', {
      headers: { cookie },
      body: JSON.stringify({ host: 'relay-ok.example', patch: { blocked: true } }),
    });
    expect(ok.status).toBe(403); // a viewer: refused by the coordinator, so it was relayed
    expect(ok.body.error?.data?.appCode).toBe('FORBIDDEN');
  });
});

describe('the tRPC relay', () => {
  let cookie: string;
  beforeAll(async () => {
    const res = await signIn('viewer@test.local', 'viewer-password-1');
    cookie = (res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('console_session='))!
      .split(';')[0]!;
  });

  it('relays a batch of reads as one request, with the session', async () => {
    const input = encodeURIComponent(JSON.stringify({ 1: { limit: 5 } }));
    const res = await browserCall('GET', `/api/trpc/auth.me,agents.list?batch=1&input=${input}`, {
      headers: { cookie },
    });
    expect(res.status).toBe(200);
    const [me, agents] = res.body as unknown as Array<{ result: { data: unknown } }>;
    expect(me!.result.data).toMatchObject({ role: 'viewer', user: { email: 'viewer@test.local' } });
    expect(agents!.result.data).toHaveProperty('items');
  });

  it('relays only the procedures the console uses, and only for a signed-in browser', async () => {
    const rebuild = await browserCall('POST', '/api/trpc/frontier.rebuild?batch=1', {
      headers: { cookie },
      body: '{}',
    });
    expect(rebuild.status).toBe(404);
    expect(rebuild.body.error?.data?.appCode).toBe('NOT_FOUND');
    const login = await browserCall('POST', '/api/trpc/auth.login', {
      headers: { cookie },
      body: JSON.stringify({ email: 'viewer@test.local', password: 'viewer-password-1' }),
    });
    expect(login.status).toBe(404);
    const anonymous = await browserCall('GET', '/api/trpc/stats.get');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error?.data?.appCode).toBe('UNAUTHENTICATED');
  });
});
