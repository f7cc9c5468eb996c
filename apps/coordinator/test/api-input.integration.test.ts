import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import pg from 'pg';
import type { FrontierStats } from '@crawler/frontier';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import { Coordinator } from '../src/coordinator';
import { httpCall } from './http-call';
import { makeTestEnv, type TestEnv } from './test-env';

// Input validation of the coordinator API against a real coordinator (Postgres, Redis, embedded
// ClickHouse): every bad request is a 4xx that says what is wrong, and writes nothing.
let env: TestEnv;
let coordinator: Coordinator;
let db: pg.Client;

beforeAll(async () => {
  env = makeTestEnv();
  coordinator = await Coordinator.start(env.config, createLogger('api-input', 'silent'));
  db = new pg.Client({ connectionString: env.config.DATABASE_URL });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await db?.end();
  await coordinator?.stop();
  if (env) {
    // After the stop, so that the telemetry consumer cannot recreate its stream key.
    const redis = await connectRedis(env.config.REDIS_URL);
    await deleteKeysWithPrefix(redis, env.config.REDIS_PREFIX);
    redis.disconnect();
    await env.cleanup();
  }
});

interface ErrorBody {
  error: {
    code: string;
    message: string;
    fields?: Array<{ path: string; message: string }>;
    details?: unknown;
  };
}
interface SeedsReply {
  valid: number;
  added: number;
  enqueued: number;
  rejected: Array<{ index: number; url: string; reason: string; detail: string }>;
}
interface HostReply {
  host: string;
  policy: {
    rate_limit_rps: number | null;
    blocked: boolean;
    effective_gap_ms: number;
    patterns: string[];
  };
  queue_length: number;
  next_allowed_at: string | null;
  leased: boolean;
  parked: string | null;
}

interface Reply<T> {
  status: number;
  body: T;
}

/**
 * One HTTP call to the coordinator on a fresh connection (so that one call cannot leave a
 * kept-alive connection in a state that breaks the next), as the admin; `body` as a string is
 * sent as is, `contentType: null` sends none.
 */
async function call<T = ErrorBody>(
  method: string,
  path: string,
  opts: { body?: string | object; contentType?: string | null } = {},
): Promise<Reply<T>> {
  const res = await httpCall<T>(coordinator.url, method, path, {
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    ...(opts.contentType !== undefined ? { contentType: opts.contentType } : {}),
    headers: env.auth,
  });
  return { status: res.status, body: res.body };
}

interface Snapshot {
  seeds: number;
  policies: number;
  frontier: FrontierStats;
}

/** What a request could have written: Postgres rows and the frontier's counters. */
async function snapshot(): Promise<Snapshot> {
  const count = async (table: string) =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
  return {
    seeds: await count('seeds'),
    policies: await count('host_policies'),
    frontier: await coordinator.services.frontier.stats(),
  };
}

const OVER_2_MIB = JSON.stringify({
  urls: Array.from({ length: 30_000 }, (_, i) => `http://big.example/${'p'.repeat(60)}/${i}`),
});
const OVER_2_MIB_POLICY = `{"blocked": true, "pad": "${'x'.repeat(2 * 1024 * 1024 + 16)}"}`;

interface RejectCase {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  body: string;
  contentType?: string | null;
  status: number;
  code: string;
  /** The message must match this. */
  message: RegExp;
  /** These field paths must be named in `fields`. */
  fields?: string[];
}

const SEEDS = '/v1/seeds';
const HOST = '/v1/hosts/example.com';
const rejectCases: RejectCase[] = [
  // POST /v1/seeds
  {
    name: 'seeds: malformed JSON',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": ["http://a.example/",',
    status: 400,
    code: 'BAD_REQUEST',
    message: /not valid JSON/,
  },
  {
    name: 'seeds: Content-Type text/plain',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": ["http://a.example/"]}',
    contentType: 'text/plain',
    status: 400,
    code: 'BAD_REQUEST',
    message: /Content-Type: application\/json/,
  },
  {
    name: 'seeds: no Content-Type',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": ["http://a.example/"]}',
    contentType: null,
    status: 400,
    code: 'BAD_REQUEST',
    message: /Content-Type: application\/json/,
  },
  {
    name: 'seeds: urls is a string, not an array',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": "http://a.example/"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^urls: /,
    fields: ['urls'],
  },
  {
    name: 'seeds: urls missing',
    method: 'POST',
    path: SEEDS,
    body: '{"priority": 1}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /urls/,
    fields: ['urls'],
  },
  {
    name: 'seeds: a URL that is not a string',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": ["http://a.example/", 42]}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /urls\.1/,
    fields: ['urls.1'],
  },
  {
    name: 'seeds: priority "high"',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": ["http://a.example/"], "priority": "high"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^priority: /,
    fields: ['priority'],
  },
  {
    name: 'seeds: priority out of range',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": ["http://a.example/"], "priority": 10}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /priority/,
    fields: ['priority'],
  },
  {
    name: 'seeds: unknown field',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": ["http://a.example/"], "depth": 3}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"depth"/,
  },
  {
    name: 'seeds: a list name with a slash',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": ["http://list.example/"], "list": "a/b"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^list: /,
    fields: ['list'],
  },
  {
    name: 'seeds: empty urls array',
    method: 'POST',
    path: SEEDS,
    body: '{"urls": []}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /give at least one URL/,
    fields: ['urls'],
  },
  {
    name: 'seeds: body is JSON null',
    method: 'POST',
    path: SEEDS,
    body: 'null',
    status: 400,
    code: 'BAD_REQUEST',
    message: /\(body\)/,
  },
  {
    name: 'seeds: body is a JSON array',
    method: 'POST',
    path: SEEDS,
    body: '["http://a.example/"]',
    status: 400,
    code: 'BAD_REQUEST',
    message: /\(body\)/,
  },
  {
    name: 'seeds: body over 2 MiB',
    method: 'POST',
    path: SEEDS,
    body: OVER_2_MIB,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: /larger than 2097152 bytes/,
  },
  // PUT /v1/hosts/{host}
  {
    name: 'hosts: malformed JSON',
    method: 'PUT',
    path: HOST,
    body: '{"blocked": tru',
    status: 400,
    code: 'BAD_REQUEST',
    message: /not valid JSON/,
  },
  {
    name: 'hosts: Content-Type form',
    method: 'PUT',
    path: HOST,
    body: 'blocked=true',
    contentType: 'application/x-www-form-urlencoded',
    status: 400,
    code: 'BAD_REQUEST',
    message: /Content-Type: application\/json/,
  },
  {
    name: 'hosts: rate_limit_rps "fast"',
    method: 'PUT',
    path: HOST,
    body: '{"rate_limit_rps": "fast"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^rate_limit_rps: /,
    fields: ['rate_limit_rps'],
  },
  {
    name: 'hosts: rate_limit_rps 0',
    method: 'PUT',
    path: HOST,
    body: '{"rate_limit_rps": 0}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /rate_limit_rps/,
    fields: ['rate_limit_rps'],
  },
  {
    name: 'hosts: rate_limit_rps over 1000',
    method: 'PUT',
    path: HOST,
    body: '{"rate_limit_rps": 5000}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /rate_limit_rps/,
    fields: ['rate_limit_rps'],
  },
  {
    name: 'hosts: blocked "yes"',
    method: 'PUT',
    path: HOST,
    body: '{"blocked": "yes"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^blocked: /,
    fields: ['blocked'],
  },
  {
    name: 'hosts: unknown field',
    method: 'PUT',
    path: HOST,
    body: '{"blocked": true, "crawl_delay": 5}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"crawl_delay"/,
  },
  {
    name: 'hosts: empty patch',
    method: 'PUT',
    path: HOST,
    body: '{}',
    status: 400,
    code: 'BAD_REQUEST',
    message:
      /give at least one of rate_limit_rps, blocked, daily_budget, allowlisted, max_connections/,
  },
  {
    name: 'hosts: daily_budget -1',
    method: 'PUT',
    path: HOST,
    body: '{"daily_budget": -1}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^daily_budget: /,
    fields: ['daily_budget'],
  },
  {
    name: 'hosts: daily_budget 2.5',
    method: 'PUT',
    path: HOST,
    body: '{"daily_budget": 2.5}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^daily_budget: /,
    fields: ['daily_budget'],
  },
  {
    name: 'hosts: max_connections 17',
    method: 'PUT',
    path: HOST,
    body: '{"max_connections": 17}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^max_connections: /,
    fields: ['max_connections'],
  },
  {
    name: 'hosts: allowlisted "yes"',
    method: 'PUT',
    path: HOST,
    body: '{"allowlisted": "yes"}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /^allowlisted: /,
    fields: ['allowlisted'],
  },
  {
    name: 'hosts: a pattern with a wildcard inside',
    method: 'PUT',
    path: '/v1/hosts/a.*.example.com',
    body: '{"blocked": true}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /a\.\*\.example\.com/,
  },
  {
    name: 'hosts: body over 2 MiB',
    method: 'PUT',
    path: HOST,
    body: OVER_2_MIB_POLICY,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: /larger than 2097152 bytes/,
  },
  {
    name: 'hosts: space in the host name',
    method: 'PUT',
    path: '/v1/hosts/exa mple.com',
    body: '{"blocked": true}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"exa mple\.com" is not a valid host name/,
  },
  {
    name: 'hosts: a URL instead of a host name',
    method: 'PUT',
    path: '/v1/hosts/http:%2F%2Fx',
    body: '{"blocked": true}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /"http:\/\/x" is not a valid host name/,
  },
  {
    name: 'hosts: a host with a port',
    method: 'PUT',
    path: '/v1/hosts/example.com:8080',
    body: '{"blocked": true}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /is not a valid host name/,
  },
  {
    name: 'hosts: an IPv4 address out of range',
    method: 'PUT',
    path: '/v1/hosts/999.999.999.999',
    body: '{"blocked": true}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /is not a valid host name/,
  },
  {
    name: 'hosts: a malformed percent-escape in the host',
    method: 'PUT',
    path: '/v1/hosts/exa%E0%A4mple.com',
    body: '{"blocked": true}',
    status: 400,
    code: 'BAD_REQUEST',
    message: /host/,
  },
];

describe('rejected requests', () => {
  it.each(rejectCases)('$name → $status, nothing written', async (c) => {
    const before = await snapshot();
    const res = await call(c.method, c.path, {
      body: c.body,
      ...(c.contentType !== undefined ? { contentType: c.contentType } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(c.status);
    expect(res.body.error.code).toBe(c.code);
    expect(res.body.error.message).toMatch(c.message);
    for (const f of c.fields ?? []) expect(res.body.error.fields?.map((x) => x.path)).toContain(f);
    expect(await snapshot()).toEqual(before);
  });

  it('a 413 leaves a kept-alive connection usable, or closes it saying so', async () => {
    // A client that keeps its connection (fetch, curl, any pool) sends its next request on it.
    const port = Number(new URL(coordinator.url).port);
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let got = '';
      let asked = false;
      const done = (what: string) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(what);
      };
      const timer = setTimeout(
        () => done(`stuck: no answer within 2.5 s; received ${JSON.stringify(got.slice(0, 300))}`),
        2500,
      );
      socket.on('error', () => undefined);
      socket.on('close', () =>
        done(/\r\nconnection: close\r\n/i.test(got) ? 'closed as announced' : 'closed unannounced'),
      );
      socket.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        if (!asked && got.includes('PAYLOAD_TOO_LARGE')) {
          asked = true;
          if (/\r\nconnection: close\r\n/i.test(got)) return; // wait for the close
          socket.write('GET /healthz HTTP/1.1\r\nHost: coordinator\r\n\r\n');
        }
        if (asked && /HTTP\/1\.1 200 OK[\s\S]*\{"ok":true\}/.test(got)) done('answered');
      });
      socket.write(
        `POST /v1/seeds HTTP/1.1\r\nHost: coordinator\r\nContent-Type: application/json\r\n` +
          `Authorization: ${env.auth.authorization}\r\n` +
          `Content-Length: ${Buffer.byteLength(OVER_2_MIB)}\r\n\r\n`,
      );
      socket.write(OVER_2_MIB);
    });
    expect(outcome, outcome).toMatch(/^(answered|closed as announced)$/);
  });

  it('a malformed percent-escape in GET /v1/hosts/{host} is 400, not 500', async () => {
    const res = await call('GET', '/v1/hosts/%');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });

  it('the coordinator still serves after the rejected requests', async () => {
    const res = await fetch(`${coordinator.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});

describe('POST /v1/seeds with a mixed list', () => {
  const urls = [
    'http://good-a.example/x',
    'not a url',
    '  http://good-b.example  ',
    'ftp://files.example/',
    'http://good-a.example/x',
    'HTTP://GOOD-C.example:80/y#frag',
    '',
  ];
  const expected = ['http://good-a.example/x', 'http://good-b.example/', 'http://good-c.example/y'];

  async function storedSeeds(): Promise<Array<{ url: string; enqueued: boolean }>> {
    const r = await db.query<{ url: string; enqueued: boolean }>(
      `SELECT url, enqueued_at IS NOT NULL AS enqueued FROM seeds WHERE host LIKE 'good-%' ORDER BY url`,
    );
    return r.rows;
  }

  it('answers 400 naming each bad entry and applies the valid ones exactly once', async () => {
    const before = await snapshot();
    const res = await call<ErrorBody & SeedsReply>('POST', SEEDS, { body: { urls } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toMatch(/3 of the URLs are invalid/);
    expect(res.body.rejected.map((r) => [r.index, r.url, r.reason])).toEqual([
      [1, 'not a url', 'invalid'],
      [3, 'ftp://files.example/', 'scheme'],
      [6, '', 'empty'],
    ]);
    expect(res.body.rejected.every((r) => r.detail.length > 0)).toBe(true);
    expect(res.body).toMatchObject({ valid: 3, added: 3, enqueued: 3 });

    expect(await storedSeeds()).toEqual(expected.map((url) => ({ url, enqueued: true })));
    const after = await snapshot();
    expect(after.seeds - before.seeds).toBe(3);
    expect(after.policies).toBe(before.policies);
    expect(after.frontier.queuedUrls - before.frontier.queuedUrls).toBe(3);
    expect(after.frontier.seenUrls - before.frontier.seenUrls).toBe(3);
    expect(after.frontier.hosts - before.frontier.hosts).toBe(3);
    const frontier = coordinator.services.frontier;
    for (const host of ['good-a.example', 'good-b.example', 'good-c.example'])
      expect((await frontier.hostState(host)).queued, host).toBe(1);
    expect((await frontier.hostState('files.example')).queued).toBe(0);
  });

  it('posting the same list again adds and enqueues nothing', async () => {
    const before = await snapshot();
    const res = await call<ErrorBody & SeedsReply>('POST', SEEDS, { body: { urls } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ valid: 3, added: 0, enqueued: 0 });
    expect(res.body.rejected.map((r) => r.index)).toEqual([1, 3, 6]);
    expect(await storedSeeds()).toEqual(expected.map((url) => ({ url, enqueued: true })));
    expect(await snapshot()).toEqual(before);
  });

  it('an all-valid list is a 200 without an error', async () => {
    const res = await call<SeedsReply & { error?: unknown }>('POST', SEEDS, {
      body: { urls: ['https://valid-only.example/'], priority: 0 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: 1,
      added: 1,
      enqueued: 1,
      list: null,
      sitemaps: 0,
      rejected: [],
    });
    const row = await db.query<{ priority: number; source: string }>(
      `SELECT priority, source FROM seeds WHERE url = 'https://valid-only.example/'`,
    );
    expect(row.rows).toEqual([{ priority: 0, source: 'api' }]);
  });
});

describe('seed lists', () => {
  it('puts the valid URLs in a named list, listed with its size, and pages its seeds', async () => {
    const urls = ['http://sl-a.example/', 'http://sl-b.example/', 'http://sl-c.example/'];
    const res = await call<SeedsReply & { list: string | null }>('POST', SEEDS, {
      body: { urls, list: 'news sites' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: 3, added: 3, list: 'news sites' });
    // A seed already stored joins a second list without being added again.
    const again = await call<SeedsReply>('POST', SEEDS, {
      body: { urls: [urls[0]], list: 'other-list' },
    });
    expect(again.body).toMatchObject({ valid: 1, added: 0 });

    const lists = await call<{ items: { name: string; seeds: number }[] }>('GET', '/v1/seed-lists');
    expect(lists.status).toBe(200);
    expect(lists.body.items.map((l) => [l.name, l.seeds])).toEqual([
      ['news sites', 3],
      ['other-list', 1],
    ]);
    type Page = { items: { url: string; lists: string[] }[]; next_cursor: string | null };
    const first = await call<Page>('GET', '/v1/seeds?list=news%20sites&limit=2');
    expect(first.body.items.map((i) => i.url)).toEqual(urls.slice(0, 2));
    expect(first.body.items[0]!.lists).toEqual(['news sites', 'other-list']);
    const rest = await call<Page>(
      'GET',
      `/v1/seeds?list=news%20sites&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(rest.body.items.map((i) => i.url)).toEqual([urls[2]]);
    expect(rest.body.next_cursor).toBeNull();
    const bad = await call<ErrorBody>('GET', '/v1/seeds?cursor=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^cursor: /);
  });
});

describe('host policies', () => {
  it('PUT {"blocked": true} then GET shows the host blocked', async () => {
    const put = await call<Record<string, unknown>>('PUT', HOST, { body: { blocked: true } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      host: 'example.com',
      kind: 'host',
      blocked: true,
      rate_limit_rps: null,
      daily_budget: null,
      allowlisted: null,
      max_connections: null,
      hosts_updated: 1,
    });

    const get = await call<HostReply>('GET', HOST);
    expect(get.status).toBe(200);
    expect(get.body.host).toBe('example.com');
    expect(get.body.policy).toEqual({
      rate_limit_rps: null,
      daily_budget: null,
      allowlisted: null,
      max_connections: null,
      blocked: true,
      effective_gap_ms: env.config.CRAWLER_DEFAULT_GAP_MS,
      effective_daily_budget: env.config.HOST_DAILY_BUDGET,
      effective_max_connections: 1,
      patterns: [],
    });
    const rows = await db.query<{ blocked: boolean }>(
      `SELECT blocked FROM host_policies WHERE host = 'example.com'`,
    );
    expect(rows.rows).toEqual([{ blocked: true }]);
    const state = await coordinator.services.frontier.hostState('example.com');
    expect(state.fields.blocked).toBe('1');
  });

  it('a host name is stored in its canonical form and a patch keeps the other field', async () => {
    const before = await snapshot();
    const put = await call('PUT', '/v1/hosts/EXAMPLE.com', { body: { rate_limit_rps: 0.5 } });
    expect(put.status).toBe(200);
    const get = await call<HostReply>('GET', '/v1/hosts/example.com');
    expect(get.body.policy).toMatchObject({
      rate_limit_rps: 0.5,
      blocked: true,
      effective_gap_ms: 2000,
    });
    expect((await snapshot()).policies).toBe(before.policies);
  });

  it('a daily budget and an allowlist reach the frontier; a pattern is stored canonical', async () => {
    const put = await call('PUT', '/v1/hosts/budget.example', {
      body: { daily_budget: 3, allowlisted: true },
    });
    expect(put.status).toBe(200);
    const state = await coordinator.services.frontier.hostState('budget.example');
    expect(state.fields).toMatchObject({ daily_budget: '3', allowlisted: '1' });
    const get = await call<HostReply>('GET', '/v1/hosts/budget.example');
    expect(get.body.policy).toMatchObject({ daily_budget: 3, effective_daily_budget: 0 });

    const pattern = await call('PUT', '/v1/hosts/*.Budget.EXAMPLE', { body: { daily_budget: 9 } });
    expect(pattern.status).toBe(200);
    expect(pattern.body).toMatchObject({
      host: '*.budget.example',
      kind: 'suffix',
      hosts_updated: 1,
    });
    await call('PUT', '/v1/hosts/budget.example', {
      body: { daily_budget: null, allowlisted: null },
    });
    const after = await call<HostReply>('GET', '/v1/hosts/budget.example');
    expect(after.body.policy).toMatchObject({
      daily_budget: null,
      effective_daily_budget: 9,
      patterns: ['*.budget.example'],
    });
    const fields = (await coordinator.services.frontier.hostState('budget.example')).fields;
    expect(fields).toMatchObject({ daily_budget: '9', allowlisted: '0' });
  });

  it('GET of an unknown host is 404', async () => {
    const res = await call('GET', '/v1/hosts/unknown.example');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.body.error.message).toContain('unknown.example');
  });

  it('GET with an invalid host name is 400', async () => {
    const res = await call('GET', '/v1/hosts/exa mple.com');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });
});

describe('routing', () => {
  it('an unknown route is 404', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing'],
      ['GET', '/v2/stats'],
      ['POST', '/v1/host'],
      ['GET', '/v1/hosts/a/b'],
    ] as const) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('a wrong method is 405 and names the allowed one', async () => {
    const seeds = await call('DELETE', SEEDS);
    expect(seeds.status).toBe(405);
    expect(seeds.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(seeds.body.error.message).toMatch(/use GET, POST/);
    const host = await call('DELETE', HOST);
    expect(host.status).toBe(405);
    expect(host.body.error.message).toMatch(/use GET, PUT/);
  });
});

describe('tRPC', () => {
  interface TrpcError {
    error: {
      message: string;
      data: {
        code: string;
        httpStatus: number;
        path: string;
        fields?: Array<{ path: string; message: string }>;
      };
    };
  }

  it('POST /trpc/seeds.add with the raw input adds the seed', async () => {
    const res = await call<{ result: { data: SeedsReply } }>('POST', '/trpc/seeds.add', {
      body: { urls: ['http://a.example/'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({
      valid: 1,
      added: 1,
      enqueued: 1,
      list: null,
      sitemaps: 0,
      rejected: [],
    });
    const rows = await db.query<{ url: string; source: string }>(
      `SELECT url, source FROM seeds WHERE host = 'a.example'`,
    );
    expect(rows.rows).toEqual([{ url: 'http://a.example/', source: 'api' }]);
  });

  it.each([
    ['urls not an array', { urls: 'http://a.example/' }, 'urls'],
    ['priority "high"', { urls: ['http://b.example/'], priority: 'high' }, 'priority'],
    ['empty urls', { urls: [] }, 'urls'],
  ])('seeds.add with %s is BAD_REQUEST naming the field', async (_n, input, field) => {
    const before = await snapshot();
    const res = await call<TrpcError>('POST', '/trpc/seeds.add', { body: input });
    expect(res.status).toBe(400);
    expect(res.body.error.data.code).toBe('BAD_REQUEST');
    expect(res.body.error.data.path).toBe('seeds.add');
    expect(res.body.error.data.fields?.map((f) => f.path)).toContain(field);
    expect(await snapshot()).toEqual(before);
  });

  it('seeds.add with an unknown field is BAD_REQUEST', async () => {
    const before = await snapshot();
    const res = await call<TrpcError>('POST', '/trpc/seeds.add', {
      body: { urls: ['http://b.example/'], depth: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.data.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toContain('depth');
    expect(await snapshot()).toEqual(before);
  });

  it('hosts.update with an invalid host is BAD_REQUEST (service errors map to tRPC codes)', async () => {
    const before = await snapshot();
    const res = await call<TrpcError>('POST', '/trpc/hosts.update', {
      body: { host: 'exa mple.com', patch: { blocked: true } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.data.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toContain('not a valid host name');
    expect(await snapshot()).toEqual(before);
  });

  it('hosts.get of an unknown host is NOT_FOUND', async () => {
    const input = encodeURIComponent(JSON.stringify({ host: 'unknown.example' }));
    const res = await call<TrpcError>('GET', `/trpc/hosts.get?input=${input}`);
    expect(res.status).toBe(404);
    expect(res.body.error.data.code).toBe('NOT_FOUND');
  });
});
