import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchRow } from '@crawler/analytics';
import { restRoutes } from '../src/api/rest-routes';
import { startAuthKit, type AuthKit } from './auth-kit';
import type { ApiError } from './http-call';

// The routes the console reads beyond the crawl basics: stats series, host search and details,
// agents, shards, settings, captures' input checks and the OpenAPI document. Fetch rows are
// inserted straight into the analytics store (the crawl itself is in url-inspector.*.test.ts).
let kit: AuthKit;
const now = Date.now();

function fetchRow(i: number, over: Partial<FetchRow> = {}): FetchRow {
  const host = `h${i % 3}.series.example`;
  return {
    url_fp: i.toString(16).padStart(16, '0'),
    url: `http://${host}/p${i}`,
    host,
    fetched_at: new Date(now - 30_000 + i * 100),
    status: [200, 200, 301, 404, 503, 0][i % 6]!,
    error_code: i % 6 === 5 ? 'total_timeout' : '',
    bytes: 1000 + i,
    fetch_ms: 10 + i,
    content_type: 'text/html',
    content_hash: (i % 6 < 2 ? (i % 4).toString(16) : '').padStart(i % 6 < 2 ? 64 : 0, '0'),
    depth: 0,
    agent_id: 'agent-a',
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
    simhash: i % 6 < 2 ? 'aaaaaaaaaaaaaaaa' : '',
    duplicate_of: i === 6 ? 'http://h0.series.example/p0' : '',
    ...over,
  };
}

beforeAll(async () => {
  kit = await startAuthKit('console-api');
  const s = kit.coordinator.services;
  await s.analytics.insertFetches(Array.from({ length: 60 }, (_, i) => fetchRow(i)));
  await kit.call('PUT', '/v1/hosts/policy-only.series.example', { body: { blocked: true } });
  await kit.call('PUT', '/v1/hosts/h1.series.example', { body: { rate_limit_rps: 2 } });
}, 60_000);

afterAll(async () => {
  await kit?.stop();
});

describe('GET /v1/stats/series', () => {
  it('buckets fetches with status classes, latency quantiles and duplicates', async () => {
    const res = await kit.call<{
      window: string;
      bucket_s: number;
      buckets: {
        t: number;
        pages: number;
        s2xx: number;
        s5xx: number;
        no_answer: number;
        errors: number;
        p95_ms: number;
        duplicates: number;
        near_duplicates: number;
      }[];
      error_codes: { code: string; count: number }[];
      status_mix: { status_class: string; count: number }[];
    }>('GET', '/v1/stats/series?window=15m', { as: 'viewer' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect([res.body.window, res.body.bucket_s]).toEqual(['15m', 15]);
    expect(res.body.buckets.length).toBeGreaterThanOrEqual(60);
    const sum = (
      k: 'pages' | 's2xx' | 's5xx' | 'no_answer' | 'errors' | 'duplicates' | 'near_duplicates',
    ) => res.body.buckets.reduce((a, b) => a + b[k], 0);
    expect(sum('pages')).toBe(60);
    expect(sum('s2xx')).toBe(20);
    expect(sum('errors')).toBe(20); // 503s and no answers
    // The status mix's series count each response once: 10 503s, 10 without an answer.
    expect([sum('s5xx'), sum('no_answer')]).toEqual([10, 10]);
    expect(sum('duplicates')).toBe(1);
    // Same SimHash, bodies with different hashes: near duplicates.
    expect(sum('near_duplicates')).toBeGreaterThan(0);
    expect(Math.max(...res.body.buckets.map((b) => b.p95_ms))).toBeGreaterThan(0);
    expect(res.body.error_codes).toEqual([{ code: 'total_timeout', count: 10 }]);
    expect(res.body.status_mix).toEqual([
      { status_class: '2xx', count: 20 },
      { status_class: '3xx', count: 10 },
      { status_class: '4xx', count: 10 },
      { status_class: '5xx', count: 10 },
      { status_class: 'none', count: 10 },
    ]);
  });

  it('names the field of a bad window (400)', async () => {
    const res = await kit.call<ApiError>('GET', '/v1/stats/series?window=2d', { as: 'viewer' });
    expect(res.status).toBe(400);
    expect(res.body.error.fields?.[0]?.path).toBe('window');
  });

  it('answers over tRPC with the same schema', async () => {
    const input = encodeURIComponent(JSON.stringify({ window: '1h' }));
    const res = await kit.call<{ result: { data: { bucket_s: number } } }>(
      'GET',
      `/trpc/stats.series?input=${input}`,
      { as: 'viewer' },
    );
    expect(res.status).toBe(200);
    expect(res.body.result.data.bucket_s).toBe(60);
  });
});

describe('GET /v1/hosts', () => {
  type Page = {
    items: {
      host: string;
      fetches: number;
      errors: number;
      blocked: boolean;
      rate_limit_rps: number | null;
      last_fetch_at: string | null;
    }[];
    next_cursor: string | null;
  };
  it('merges hosts from fetches and policies, filtered by substring', async () => {
    const res = await kit.call<Page>('GET', '/v1/hosts?q=SERIES', { as: 'viewer' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items.map((h) => h.host)).toEqual([
      'h0.series.example',
      'h1.series.example',
      'h2.series.example',
      'policy-only.series.example',
    ]);
    const [h0, h1, h2, policyOnly] = res.body.items;
    // h0: statuses 200 and 404; h2: 301 and no answer.
    expect([h0!.fetches, h0!.errors, h0!.last_fetch_at !== null]).toEqual([20, 0, true]);
    expect([h2!.fetches, h2!.errors]).toEqual([20, 10]);
    expect(h1!.rate_limit_rps).toBe(2);
    expect([policyOnly!.fetches, policyOnly!.blocked, policyOnly!.last_fetch_at]).toEqual([
      0,
      true,
      null,
    ]);
    expect(res.body.next_cursor).toBeNull();
  });

  it('pages with cursor and limit', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res: { status: number; body: Page } = await kit.call<Page>(
        'GET',
        `/v1/hosts?q=series&limit=3${q}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((h) => h.host));
      cursor = res.body.next_cursor;
    }
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
  });

  it('names a bad limit (400)', async () => {
    const res = await kit.call<ApiError>('GET', '/v1/hosts?limit=0');
    expect(res.status).toBe(400);
    expect(res.body.error.fields?.[0]?.path).toBe('limit');
  });
});

describe('GET /v1/hosts/{host} (extended)', () => {
  it('adds recent fetches, recent errors and the audit trail', async () => {
    const res = await kit.call<{
      host: string;
      policy: { rate_limit_rps: number | null };
      robots: unknown;
      recent_fetches: { url: string; status: number }[];
      recent_errors: { status: number; error_code: string }[];
      audit: { actor: string | null; action: string; after: unknown }[];
    }>('GET', '/v1/hosts/h1.series.example', { as: 'viewer' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.policy.rate_limit_rps).toBe(2);
    expect(res.body.robots).toBeNull();
    expect(res.body.recent_fetches).toHaveLength(20);
    expect(res.body.recent_errors.every((e) => e.status === 0 || e.status >= 400)).toBe(true);
    expect(res.body.audit.map((a) => a.action)).toEqual(['hosts.update']);
    // Who made a change is for operators and admins, as in the audit log.
    expect(res.body.audit[0]!.actor).toBeNull();
    const asOperator = await kit.call<{ audit: { actor: string | null }[] }>(
      'GET',
      '/v1/hosts/h1.series.example',
      { as: 'operator' },
    );
    expect(asOperator.body.audit[0]!.actor).toContain('admin@test.local');
  });

  it('is 404 for a host no store knows', async () => {
    const res = await kit.call<ApiError>('GET', '/v1/hosts/nowhere.series.example');
    expect(res.status).toBe(404);
  });
});

describe('GET /v1/agents and /v1/shards', () => {
  it('lists agents with heartbeat, liveness and throughput', async () => {
    const s = kit.coordinator.services;
    await s.redis.zadd(s.agentsKey, Date.now() - 1000, 'agent-a', Date.now() - 60_000, 'agent-b');
    // 30 attempts a second ago: at least 0.5 pages/s over the last minute.
    await s.analytics.insertFetches(
      Array.from({ length: 30 }, (_, i) =>
        fetchRow(1000 + i, {
          host: 'rate.agents.example',
          url: `http://rate.agents.example/${i}`,
          fetched_at: new Date(Date.now() - 1000 - i),
        }),
      ),
    );
    const res = await kit.call<{
      items: {
        id: string;
        alive: boolean;
        state: string;
        leases: number;
        hosts: string[];
        pages_per_s: number;
      }[];
      next_cursor: string | null;
    }>('GET', '/v1/agents', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body.items.map((a) => [a.id, a.alive, a.state, a.leases])).toEqual([
      ['agent-a', true, 'alive', 0],
      ['agent-b', false, 'dead', 0],
    ]);
    expect(res.body.items[0]!.pages_per_s).toBeGreaterThanOrEqual(0.5);
    const paged = await kit.call<{ items: { id: string }[]; next_cursor: string | null }>(
      'GET',
      '/v1/agents?limit=1',
    );
    expect([paged.body.items[0]!.id, paged.body.next_cursor]).toEqual(['agent-a', 'agent-a']);
  });

  it('keeps agents seen in Postgres after their heartbeat is gone, and records the shard map', async () => {
    const s = kit.coordinator.services;
    const beat = Date.now() - 2000;
    await s.redis.zadd(s.agentsKey, beat, 'agent-gone');
    await kit.coordinator.fleet.recordOnce();
    await s.redis.zrem(s.agentsKey, 'agent-gone');
    const res = await kit.call<{
      items: {
        id: string;
        alive: boolean;
        state: string;
        last_beat_at: string;
        first_seen_at: string | null;
      }[];
    }>('GET', '/v1/agents');
    const gone = res.body.items.find((a) => a.id === 'agent-gone');
    // It left the heartbeat set as a clean stop does: stopped, not alive and not dead.
    expect(gone).toEqual(
      expect.objectContaining({
        alive: false,
        state: 'stopped',
        last_beat_at: new Date(beat).toISOString(),
        first_seen_at: new Date(beat).toISOString(),
      }),
    );
    const rows = await s.store.fleet.shardMap();
    expect(rows.map((r) => r.shard)).toEqual([...Array(16).keys()]);
    const shards = await kit.call<{ items: { node: string; node_since: string | null }[] }>(
      'GET',
      '/v1/shards',
    );
    expect(shards.body.items[0]!.node_since).toBe(rows[0]!.since.toISOString());
    // A later check keeps `since` while the node is the same.
    await kit.coordinator.fleet.recordOnce(new Date(Date.now() + 60_000));
    expect((await s.store.fleet.shardMap())[0]!.since).toEqual(rows[0]!.since);
  });

  it('lists every shard with its counters and node, paginated', async () => {
    const all = await kit.call<{ items: { shard: number; hosts: number; node: string | null }[] }>(
      'GET',
      '/v1/shards',
      { as: 'viewer' },
    );
    expect(all.status).toBe(200);
    expect(all.body.items.map((s) => s.shard)).toEqual([...Array(16).keys()]);
    expect(all.body.items.reduce((a, s) => a + s.hosts, 0)).toBeGreaterThan(0);
    expect(all.body.items[0]!.node).toMatch(/:\d+$/);
    const page = await kit.call<{ items: { shard: number }[]; next_cursor: string | null }>(
      'GET',
      '/v1/shards?limit=10&cursor=9',
    );
    expect(page.body.items.map((s) => s.shard)).toEqual([10, 11, 12, 13, 14, 15]);
    expect(page.body.next_cursor).toBeNull();
  });
});

describe('settings', () => {
  it('shows the environment defaults until changed', async () => {
    const res = await kit.call<{ max_depth: number; overridden: string[]; updated_at: null }>(
      'GET',
      '/v1/settings',
      { as: 'viewer' },
    );
    expect(res.status).toBe(200);
    expect(res.body.max_depth).toBe(kit.env.config.CRAWLER_MAX_DEPTH);
  });

  it('an admin changes them; the change is stored and audited', async () => {
    const res = await kit.call<{ recrawl_share: number; max_depth: number; overridden: string[] }>(
      'PUT',
      '/v1/settings',
      { body: { recrawl_share: 0.5, max_depth: 4, user_agent_contact: 'https://ops.example/' } },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect([res.body.recrawl_share, res.body.max_depth]).toEqual([0.5, 4]);
    const row = await kit.db.query('SELECT recrawl_share, max_depth FROM crawl_settings');
    expect(row.rows).toEqual([{ recrawl_share: 0.5, max_depth: 4 }]);
    const audit = await kit.call<{
      items: { action: string; actor: { label: string }; after: unknown }[];
    }>('GET', '/v1/audit?action=settings.update');
    expect(audit.body.items[0]!.actor.label).toContain('admin@test.local');
    expect(audit.body.items[0]).toMatchObject({
      action: 'settings.update',
      after: { recrawl_share: 0.5, max_depth: 4, user_agent_contact: 'https://ops.example/' },
    });
  });

  it('a viewer or operator cannot PUT settings, and nothing changes', async () => {
    for (const as of ['viewer', 'operator'] as const) {
      const res = await kit.call<ApiError>('PUT', '/v1/settings', { as, body: { max_depth: 1 } });
      expect(res.status).toBe(403);
    }
    const row = await kit.db.query<{ max_depth: number }>('SELECT max_depth FROM crawl_settings');
    expect(row.rows[0]!.max_depth).toBe(4);
  });

  it.each([
    [{ recrawl_share: 1.5 }, 'recrawl_share'],
    [{ max_depth: 2.5 }, 'max_depth'],
    [{ user_agent_contact: 'ftp://x' }, 'user_agent_contact'],
    [{ default_rate_limit_rps: 0 }, 'default_rate_limit_rps'],
    [{ colour: 'red' }, ''],
  ])('rejects %j naming the field (400)', async (body, field) => {
    const res = await kit.call<ApiError>('PUT', '/v1/settings', { body });
    expect(res.status).toBe(400);
    if (field) expect(res.body.error.fields?.map((f) => f.path)).toContain(field);
    else expect(res.body.error.message).toContain('colour');
  });

  it('updates over tRPC (settings.update) with the same schema', async () => {
    const res = await kit.call<{ result: { data: { max_depth: number } } }>(
      'POST',
      '/trpc/settings.update',
      { body: { max_depth: 5 } },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.data.max_depth).toBe(5);
  });
});

describe('input checks of /v1/urls and /v1/captures', () => {
  it.each([
    ['/v1/urls', 'url'],
    ['/v1/urls?url=ftp%3A%2F%2Fx%2F', 'url'],
    ['/v1/urls?url=not%20a%20url', 'url'],
    ['/v1/captures?key=..%2Fsecret&offset=0&length=10', 'key'],
    ['/v1/captures?key=a.warc.gz&offset=-1&length=10', 'offset'],
    ['/v1/captures?key=a.warc.gz&offset=0&length=20971521', 'length'],
  ])('GET %s is 400 naming %s', async (path, field) => {
    const res = await kit.call<ApiError>('GET', path, { as: 'viewer' });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.fields?.map((f) => f.path)).toContain(field);
  });

  it('a WARC file that does not exist is 404', async () => {
    const res = await kit.call<ApiError>(
      'GET',
      '/v1/captures?key=crawl%2Fnone.warc.gz&offset=0&length=10',
    );
    expect(res.status).toBe(404);
  });
});

describe('GET /v1/openapi.json', () => {
  it('is public and lists every route with its role and schemas', async () => {
    const res = await fetch(`${kit.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            'x-required-role': string;
            parameters: { name: string }[];
            requestBody?: unknown;
            responses: Record<
              string,
              { content: Record<string, { schema: { properties?: object } }> }
            >;
          }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    for (const r of restRoutes) {
      const op = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(op!['x-required-role']).toBe(r.access);
      if (r.schemas.input) expect(op!.requestBody, r.path).toBeDefined();
    }
    const ops = Object.values(doc.paths).flatMap((p) => Object.keys(p));
    expect(ops).toHaveLength(restRoutes.length);
    const series = doc.paths['/v1/stats/series']!.get!;
    expect(series.parameters.map((p) => p.name)).toEqual(['window']);
    expect(
      Object.keys(series.responses['200']!.content['application/json']!.schema.properties ?? {}),
    ).toContain('buckets');
    expect(doc.paths['/v1/settings']!.put!['x-required-role']).toBe('admin');
    expect(doc.paths['/v1/hosts/{host}']!.get!.parameters.map((p) => p.name)).toEqual(['host']);
  });
});
