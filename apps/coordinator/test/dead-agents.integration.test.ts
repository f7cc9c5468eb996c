import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnqueueUrl, HostLease } from '@crawler/frontier';
import type { FetchRow } from '@crawler/analytics';
import { RATE_WINDOW_S } from '../src/stats/get-stats';
import { startAuthKit, type AuthKit } from './auth-kit';
import { httpCall, type ApiError } from './http-call';

// Agents that died without stopping (kill -9): /v1/stats tells them from live ones and stops
// counting pages/s when none is alive; /v1/agents shows their open leases and when those
// expire; an operator releases them at once. Real Redis, Postgres and ClickHouse; the dead
// agent is an id whose leases were taken with frontier.lease and whose heartbeat is stale.
let kit: AuthKit;

beforeAll(async () => {
  kit = await startAuthKit('dead-agents');
}, 60_000);

afterAll(async () => {
  await kit?.stop();
});

function url(host: string, path = ''): EnqueueUrl {
  const u = `http://${host}/${path}`;
  return {
    url: u,
    urlFp: createHash('sha256').update(u).digest('hex').slice(0, 16),
    host,
    depth: 0,
  };
}

function fetchRow(i: number, fetchedAt: number): FetchRow {
  const u = `http://rate.dead-agents.test/p${i}`;
  return {
    url_fp: createHash('sha256').update(u).digest('hex').slice(0, 16),
    url: u,
    host: 'rate.dead-agents.test',
    fetched_at: new Date(fetchedAt),
    status: 200,
    error_code: '',
    bytes: 100,
    fetch_ms: 10,
    content_type: 'text/html',
    content_hash: ''.padStart(64, '0'),
    depth: 0,
    agent_id: 'stats-live',
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
    simhash: '',
    duplicate_of: '',
  };
}

interface StatsBody {
  frontier: { openLeases: number };
  fetches: { total: number; pagesPerSecond: number };
  agents: { alive: number; dead: number; openLeases: { live: number; dead: number } };
}

interface AgentsBody {
  items: {
    id: string;
    alive: boolean;
    state: 'alive' | 'dead' | 'stopped';
    last_beat_at: string | null;
    leases: number;
    hosts: string[];
    open_leases: { host: string; shard: number; expires_at: string }[];
    leases_expire_at: string | null;
  }[];
}

async function agent(id: string) {
  const res = await kit.call<AgentsBody>('GET', '/v1/agents', { as: 'viewer' });
  expect(res.status).toBe(200);
  return res.body.items.find((a) => a.id === id);
}

describe('GET /v1/stats while agents die', () => {
  it('counts pages/s over the recent window only, and 0 once no agent is alive', async () => {
    const s = kit.coordinator.services;
    const now = Date.now();
    // 30 attempts in the last few seconds, 200 a few minutes ago (not part of the rate).
    await s.analytics.insertFetches([
      ...Array.from({ length: 30 }, (_, i) => fetchRow(i, now - 2_000 - i * 300)),
      ...Array.from({ length: 200 }, (_, i) => fetchRow(100 + i, now - 180_000 - i * 100)),
    ]);
    await s.redis.zadd(s.agentsKey, now, 'stats-live', now - 60_000, 'stats-dead');
    const live = await kit.call<StatsBody>('GET', '/v1/stats', { as: 'viewer' });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect(live.body.fetches.total).toBe(230);
    expect(live.body.fetches.pagesPerSecond).toBeCloseTo(30 / RATE_WINDOW_S, 6);
    expect([live.body.agents.alive, live.body.agents.dead]).toEqual([1, 1]);

    // Every agent silent for more than 15 s: nothing is being crawled, whatever was ingested.
    await s.redis.zadd(s.agentsKey, now - 16_000, 'stats-live');
    const dead = await kit.call<StatsBody>('GET', '/v1/stats', { as: 'viewer' });
    expect(dead.body.fetches.pagesPerSecond).toBe(0);
    expect(dead.body.fetches.total).toBe(230);
    expect([dead.body.agents.alive, dead.body.agents.dead]).toEqual([0, 2]);
    // A clean stop leaves the heartbeat set: neither alive nor dead.
    await s.redis.zrem(s.agentsKey, 'stats-live', 'stats-dead');
  });
});

describe('a dead agent’s leases', () => {
  let ghostLeases: HostLease[] = [];
  let liveLeases: HostLease[] = [];
  const ghostHosts = ['a.ghost.test', 'b.ghost.test', 'c.ghost.test'];

  beforeAll(async () => {
    const s = kit.coordinator.services;
    await s.frontier.enqueue(ghostHosts.flatMap((h) => [url(h), url(h, 'x')]));
    ghostLeases = await s.frontier.lease('ghost-1', 10);
    await s.frontier.enqueue([url('d.live.test')]);
    liveLeases = await s.frontier.lease('live-1', 10);
    const now = Date.now();
    await s.redis.zadd(s.agentsKey, now - 60_000, 'ghost-1', now, 'live-1');
  });

  it('lists the dead agent as dead, with its leases and when they expire', async () => {
    expect(ghostLeases.map((l) => l.host).sort()).toEqual(ghostHosts);
    expect(liveLeases.map((l) => l.host)).toEqual(['d.live.test']);
    const ghost = await agent('ghost-1');
    expect(ghost).toMatchObject({ alive: false, state: 'dead', leases: 3, hosts: ghostHosts });
    const expiry = ghost!.open_leases.map((l) => Date.parse(l.expires_at));
    expect(expiry.every((t) => t > Date.now() - 60_000)).toBe(true);
    expect([...expiry].sort((a, b) => a - b)).toEqual(expiry); // soonest first
    expect(ghost!.open_leases.map((l) => l.host).sort()).toEqual(ghostHosts);
    expect(Date.parse(ghost!.leases_expire_at!)).toBe(Math.max(...expiry));
    expect(await agent('live-1')).toMatchObject({ alive: true, state: 'alive', leases: 1 });
  });

  it('splits the open leases of /v1/stats between live and dead agents', async () => {
    const res = await kit.call<StatsBody>('GET', '/v1/stats', { as: 'viewer' });
    expect(res.body.frontier.openLeases).toBe(4);
    expect(res.body.agents.openLeases).toEqual({ live: 1, dead: 3 });
    expect([res.body.agents.alive, res.body.agents.dead]).toEqual([1, 1]);
  });

  it('refuses a viewer (403), an alive agent (409) and an unknown one (404)', async () => {
    const viewer = await kit.call<ApiError>('POST', '/v1/agents/ghost-1/release-leases', {
      as: 'viewer',
    });
    expect(viewer.status).toBe(403);
    const alive = await kit.call<ApiError>('POST', '/v1/agents/live-1/release-leases', {
      as: 'operator',
    });
    expect(alive.status).toBe(409);
    expect(alive.body.error.code).toBe('CONFLICT');
    expect(alive.body.error.message).toContain('live-1 is alive');
    const unknown = await kit.call<ApiError>('POST', '/v1/agents/nobody-here/release-leases', {
      as: 'operator',
    });
    expect(unknown.status).toBe(404);
    // Nothing moved.
    expect((await agent('ghost-1'))!.leases).toBe(3);
    expect((await agent('live-1'))!.leases).toBe(1);
  });

  it('a session without the CSRF header is refused', async () => {
    const cookie = await kit.login(kit.accounts.operator.email, kit.accounts.operator.password);
    const res = await httpCall<ApiError>(kit.url, 'POST', '/v1/agents/ghost-1/release-leases', {
      headers: { cookie },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CSRF_REJECTED');
    expect((await agent('ghost-1'))!.leases).toBe(3);
  });

  it('an operator releases them: the hosts are leasable again at once, and it is audited', async () => {
    const res = await kit.call<{ agent_id: string; released: number; last_beat_at: string }>(
      'POST',
      '/v1/agents/ghost-1/release-leases',
      { as: 'operator' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ agent_id: 'ghost-1', released: 3 });
    expect(await agent('ghost-1')).toMatchObject({
      state: 'dead',
      leases: 0,
      open_leases: [],
      leases_expire_at: null,
    });
    expect((await agent('live-1'))!.leases).toBe(1);
    const stats = await kit.call<StatsBody>('GET', '/v1/stats');
    expect(stats.body.agents.openLeases).toEqual({ live: 1, dead: 0 });

    // Their URLs are back in the queues, long before the leases would have expired.
    const s = kit.coordinator.services;
    const again: HostLease[] = [];
    for (let i = 0; i < 40 && again.length < 3; i++) {
      again.push(...(await s.frontier.lease('heir-1', 10)));
      if (again.length < 3) await sleep(100);
    }
    expect(again.map((l) => l.host).sort()).toEqual(ghostHosts);
    expect(again.flatMap((l) => l.urls.map((u) => u.url)).sort()).toEqual(
      ghostLeases.flatMap((l) => l.urls.map((u) => u.url)).sort(),
    );
    for (const l of again) await s.frontier.complete(l, { processed: 0, delayMs: 0, paceMs: 0 });

    const audit = await kit.call<{
      items: { action: string; target: string; actor: { label: string }; after: unknown }[];
    }>('GET', '/v1/audit?action=agents.releaseLeases');
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({
      action: 'agents.releaseLeases',
      target: 'ghost-1',
      after: { released: 3 },
    });
    expect(audit.body.items[0]!.actor.label).toContain('operator@test.local');
  });

  it('answers over tRPC (agents.releaseLeases) with the same rules', async () => {
    const again = await kit.call<{ result: { data: { released: number } } }>(
      'POST',
      '/trpc/agents.releaseLeases',
      { as: 'operator', body: { id: 'ghost-1' } },
    );
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.result.data.released).toBe(0);
    const alive = await kit.call<{ error: { data: { code: string } } }>(
      'POST',
      '/trpc/agents.releaseLeases',
      { as: 'operator', body: { id: 'live-1' } },
    );
    expect(alive.status).toBe(409);
    expect(alive.body.error.data.code).toBe('CONFLICT');
  });
});
