import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchRow, PageRow } from '@crawler/analytics';
import { createLogger } from '@crawler/adapters/log';
import { deleteKeysWithPrefix, scanKeys, type RedisClient } from '@crawler/adapters/redis';
import { hostOf, urlFingerprint } from '@crawler/domain/url';
import { SYSTEM } from '../src/audit/audit-entry';
import { Coordinator } from '../src/coordinator';
import { readGenerationMarker } from '../src/frontier-rebuild/generation-marker';
import { rebuildFrontier } from '../src/frontier-rebuild/rebuild-frontier';
import type {
  FrontierRebuildOutput,
  FrontierRebuildStatus,
} from '../src/frontier-rebuild/rebuild-frontier.types';
import {
  getFrontierRebuild,
  requestFrontierRebuild,
} from '../src/frontier-rebuild/request-rebuild';
import { addBlockPattern } from '../src/hosts/block-patterns';
import { setHostPolicy } from '../src/hosts/host-policy';
import { hostDeps } from '../src/api/services';
import { addSeeds } from '../src/seeds/add-seeds';
import { httpCall } from './http-call';
import { makeTestEnv, type TestEnv } from './test-env';

// Redis lost, the crawl goes on: a coordinator whose Postgres holds seeds, host policies and a
// block pattern, and whose ClickHouse holds fetches (captures, a 503, a redirect, robots.txt) and
// parsed pages with their links. The test's keys are deleted (what a Redis restart without
// persistence does), and the frontier is rebuilt: by hand, then by a coordinator that starts on
// the emptied Redis, then by the running coordinator's check. Real Postgres, Redis and chdb.
let env: TestEnv;
let coordinator: Coordinator;
const log = createLogger('frontier-rebuild', 'silent');

const T0 = Date.parse('2026-11-01T10:00:00Z');
const HOUR = 3_600_000;
const url = {
  seedA: 'https://seeds.test/',
  seedB: 'https://seeds.test/b',
  seedC: 'https://seeds.test/c',
  pageP: 'https://seeds.test/p',
  nofollowPage: 'https://seeds.test/nf',
  old: 'https://seeds.test/old',
  // Not a seed; its last attempt was a 502: its retry waited in the lost queue.
  flaky: 'https://other.test/flaky',
  robots: 'https://seeds.test/robots.txt',
  // Links of seedA's page: one fetched, two new, and three the agent would keep out.
  n1: 'https://seeds.test/n1',
  x: 'https://other.test/x',
  blocked: 'https://blocked.test/y',
  trap: 'https://seeds.test/a/a/a/a',
  privatePath: 'https://seeds.test/private/z',
  nfLink: 'https://seeds.test/nf-link',
  // A link of an older parse of seedA only: the newest parse of a page is the one that counts.
  gone: 'https://seeds.test/gone',
  // Where /old redirects; never fetched.
  target: 'https://other.test/new',
};
const fp = (u: string) => urlFingerprint(u);
const HASH = (c: string) => c.repeat(64);

function fetchRow(u: string, at: number, status: number, extra: Partial<FetchRow> = {}): FetchRow {
  const captured = status === 200 || status === 304;
  return {
    url_fp: fp(u),
    url: u,
    host: hostOf(u),
    fetched_at: new Date(at),
    status,
    error_code: '',
    bytes: 100,
    fetch_ms: 20,
    content_type: 'text/html',
    content_hash: captured ? HASH('a') : '',
    depth: 0,
    agent_id: 'test-agent',
    warc_key: captured ? 'crawl/test.warc.gz' : '',
    warc_offset: 0,
    warc_length: 100,
    redirect_to: '',
    record_type: captured ? 'response' : '',
    record_id: captured ? `<urn:uuid:${fp(u)}-${at}>` : '',
    payload_digest: captured ? 'sha1:AAAA' : '',
    change: captured ? 'new' : '',
    ...extra,
  };
}

function pageRow(u: string, links: string[], nofollow = false, at = T0): PageRow {
  return {
    url_fp: fp(u),
    url: u,
    host: hostOf(u),
    fetched_at: new Date(at),
    status: 200,
    content_type: 'text/html',
    charset: 'utf-8',
    title: 't',
    description: '',
    lang: 'en',
    text: 'text',
    text_ref: '',
    text_bytes: 4,
    canonical: '',
    noindex: false,
    nofollow,
    out_links: links,
    out_links_nofollow: links.map(() => false),
    simhash: '0123456789abcdef',
    content_hash: HASH('a'),
    change: 'new',
    warc_key: 'crawl/test.warc.gz',
    warc_offset: 0,
    warc_length: 100,
    record_id: '<urn:uuid:x>',
    depth: 0,
    agent_id: 'test-agent',
  };
}

const rows: FetchRow[] = [
  fetchRow(url.robots, T0 - 1000, 200, { content_type: 'text/plain' }),
  fetchRow(url.seedA, T0, 200, { etag: '"a1"' }),
  fetchRow(url.pageP, T0 + 1000, 200, { etag: '"p1"', depth: 1 }),
  fetchRow(url.nofollowPage, T0 + 1500, 200, { depth: 1 }),
  fetchRow(url.seedC, T0 + 2000, 503),
  fetchRow(url.flaky, T0 + 2500, 502, { depth: 2 }),
  fetchRow(url.old, T0 + 3000, 301, { redirect_to: url.target, depth: 1 }),
  fetchRow(url.seedA, T0 + 2 * HOUR, 200, {
    etag: '"a2"',
    change: 'changed',
    content_hash: HASH('b'),
  }),
];

const services = () => coordinator.services;
async function shardKeys(redis: RedisClient): Promise<string[]> {
  const keys: string[] = [];
  await scanKeys(redis, `${env.config.REDIS_PREFIX}:{*`, (batch) => void keys.push(...batch));
  return keys;
}

/** Every frontier key of the test (the shards' keys), its type and content. */
async function snapshot(redis: RedisClient): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of (await shardKeys(redis)).sort()) {
    const type = await redis.type(key);
    if (type === 'string') out[key] = (await redis.getBuffer(key))?.toString('base64');
    else if (type === 'hash') out[key] = await redis.hgetall(key);
    else if (type === 'list') out[key] = await redis.lrange(key, 0, -1);
    else if (type === 'set') out[key] = (await redis.smembers(key)).sort();
    else if (type === 'zset') out[key] = await redis.zrange(key, '0', '-1', 'WITHSCORES');
    else out[key] = type;
  }
  return out;
}

/** URLs waiting in a host's queues, every tier. */
async function queued(host: string): Promise<string[]> {
  const { frontier, redis } = services();
  const s = frontier.shardOf(host);
  const out: string[] = [];
  for (const tier of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'r'])
    for (const entry of await redis.lrange(frontier.keys.tierQueue(s, tier, host), 0, -1))
      out.push(entry.slice(entry.lastIndexOf('|') + 1));
  return out.sort();
}

async function seen(u: string): Promise<boolean> {
  const [is] = await services().frontier.seenBatch([{ urlFp: fp(u), host: hostOf(u) }]);
  return is!;
}

const schedule = (u: string) => services().recrawl.state(hostOf(u), fp(u));

/** What a rebuild must have brought back, checked after each way of running it. */
async function expectRestored(before: Record<string, unknown>): Promise<void> {
  const { frontier, redis, config } = services();
  // Seeds: the unfetched one queued at its priority; the fetched one seen, not queued again; the
  // one whose last attempt was a 503 queued for another try. Links of the parsed pages that
  // were never fetched, and the redirect's target; nothing the agent would have kept out.
  expect(await queued('seeds.test')).toEqual([url.seedB, url.seedC, url.n1].sort());
  expect(await queued('other.test')).toEqual([url.flaky, url.target, url.x].sort());
  expect(await queued('blocked.test')).toEqual([]);
  for (const u of [url.seedA, url.pageP, url.nofollowPage, url.old, url.robots])
    expect(await seen(u), u).toBe(true);
  for (const u of [url.trap, url.privatePath, url.nfLink, url.gone])
    expect(await seen(u), u).toBe(false);
  expect((await frontier.hostPriority('seeds.test')).seedPriority).toBe(0);
  // Policies, the suffix pattern, block rules and settings.
  expect(await frontier.hostPolicy('slow.test')).toEqual({ blocked: false, gapMs: 2000 });
  expect(await frontier.hostPolicy('blocked.test')).toMatchObject({ blocked: true });
  const sp = frontier.keys.suffixPolicies(frontier.shardOf('www.pattern.test'));
  expect(await redis.hget(sp, 'pattern.test')).not.toBeNull();
  expect(await redis.hget(`${config.REDIS_PREFIX}:block-rules`, 'rules')).toContain('/private/');
  expect(await redis.get(`${config.REDIS_PREFIX}:settings`)).not.toBeNull();
  // The re-crawl schedule, as the ingest had computed it.
  expect(await schedule(url.seedA)).toEqual(before.seedA);
  expect(await schedule(url.pageP)).toEqual(before.pageP);
  expect(await schedule(url.robots)).toBeNull();
  expect(await readGenerationMarker(redis, frontier.keys)).not.toBeNull();
}

const recrawlBefore: Record<string, unknown> = {};

beforeAll(async () => {
  env = makeTestEnv({ RECRAWL_SWEEP_EVERY_MS: '0' });
  coordinator = await Coordinator.start(env.config, log);
  expect(await coordinator.generation.startup).toEqual({ action: 'initialised' });
  const s = services();
  await addSeeds(s, SYSTEM, { urls: [url.seedA, url.seedB, url.seedC], priority: 0 }, 'test');
  const deps = hostDeps(s);
  await setHostPolicy(deps, SYSTEM, 'slow.test', { rate_limit_rps: 0.5 });
  await setHostPolicy(deps, SYSTEM, 'blocked.test', { blocked: true });
  await setHostPolicy(deps, SYSTEM, '*.pattern.test', { rate_limit_rps: 0.25 });
  await addBlockPattern(deps, SYSTEM, 'seeds.test', { pattern: '/private/' });
  await s.analytics.insertFetches(rows);
  await s.analytics.insertPages([
    pageRow(url.seedA, [url.gone], false, T0 - HOUR),
    pageRow(url.seedA, [url.pageP, url.n1, url.x, url.blocked, url.trap, url.privatePath]),
    pageRow(url.nofollowPage, [url.nfLink], true),
  ]);
  // What the ingest does with every stored fetch row.
  await s.recrawl.observe([...rows].sort((a, b) => +a.fetched_at - +b.fetched_at));
  recrawlBefore.seedA = await schedule(url.seedA);
  recrawlBefore.pageP = await schedule(url.pageP);
  expect(recrawlBefore.seedA).toMatchObject({ intervalMs: 12 * HOUR, etag: '"a2"' });
  expect(recrawlBefore.pageP).toMatchObject({ etag: '"p1"' });
}, 120_000);

afterAll(async () => {
  await coordinator?.stop();
  const { connectRedis } = await import('@crawler/adapters/redis');
  const redis = await connectRedis(env.config.REDIS_URL);
  await deleteKeysWithPrefix(redis, env.config.REDIS_PREFIX);
  redis.disconnect();
  await env?.cleanup();
});

describe('frontier rebuild', () => {
  let first: FrontierRebuildOutput;

  it('restores seeds, policies, known URLs and the re-crawl schedule after Redis lost them', async () => {
    await deleteKeysWithPrefix(services().redis, env.config.REDIS_PREFIX);
    expect(await services().frontier.isIdle()).toBe(true);
    first = await rebuildFrontier(services(), 'manual');
    expect(first).toMatchObject({
      reason: 'manual',
      seeds: 3,
      seeds_enqueued: 2, // seedB, and seedC (a 503); seedA is seen
      policies: 4, // slow, blocked, *.pattern, and seeds.test's (its block pattern)
      known_urls: 7,
      retried: 1, // flaky
      redirects_enqueued: 1,
      pages_read: 2,
      links_enqueued: 2,
      links_dropped: 4, // blocked host, trap, block pattern, the nofollow page's link
      recrawl_scheduled: 3, // seedA, pageP, the nofollow page
      enqueued: 6,
    });
    await expectRestored(recrawlBefore);
  });

  it('is idempotent: a second run on the live frontier changes nothing', async () => {
    const before = await snapshot(services().redis);
    const second = await rebuildFrontier(services(), 'manual');
    expect(second).toMatchObject({ enqueued: 0, newly_seen: 0, recrawl_scheduled: 0 });
    expect(await snapshot(services().redis)).toEqual(before);
    const marker = await readGenerationMarker(services().redis, services().frontier.keys);
    expect(marker?.rebuiltFrom).toMatchObject({ reason: 'manual', enqueued: 0 });
  });

  it('runs at coordinator start when the generation marker is missing, and is audited', async () => {
    await coordinator.stop();
    const { connectRedis } = await import('@crawler/adapters/redis');
    const redis = await connectRedis(env.config.REDIS_URL);
    await deleteKeysWithPrefix(redis, env.config.REDIS_PREFIX);
    redis.disconnect();
    coordinator = await Coordinator.start(env.config, log);
    const startup = await coordinator.generation.startup;
    expect(startup).toMatchObject({
      action: 'rebuilt',
      report: { reason: 'marker_missing', seeds: 3, enqueued: 6, recrawl_scheduled: 3 },
    });
    await expectRestored(recrawlBefore);
    const audit = await httpCall<{ items: { action: string; actor: string }[] }>(
      coordinator.url,
      'GET',
      '/v1/audit?action=frontier.rebuild',
      { headers: env.auth },
    );
    expect(audit.status).toBe(200);
    expect(audit.body.items.length).toBeGreaterThanOrEqual(1);
  });

  it('runs when Redis is emptied under a running coordinator', async () => {
    await deleteKeysWithPrefix(services().redis, env.config.REDIS_PREFIX);
    expect(await coordinator.generation.check()).toMatchObject({ action: 'rebuilt' });
    await expectRestored(recrawlBefore);
    // Nothing more to do once the marker is back.
    expect(await coordinator.generation.check()).toBeNull();
  });

  it('POST /v1/frontier/rebuild is for admins, and `crawler frontier rebuild` calls it', async () => {
    const api = await httpCall<FrontierRebuildStatus>(
      coordinator.url,
      'POST',
      '/v1/frontier/rebuild',
      { headers: env.auth },
    );
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({
      status: 'done',
      reason: 'manual',
      report: { reason: 'manual', seeds: 3, enqueued: 0 },
    });
    const got = await httpCall<FrontierRebuildStatus>(
      coordinator.url,
      'GET',
      '/v1/frontier/rebuild',
      { headers: env.auth },
    );
    expect(got.body).toEqual(api.body);

    const user = await httpCall<{ id: string }>(coordinator.url, 'POST', '/v1/users', {
      headers: env.auth,
      body: { email: 'op@test.local', password: 'operator-password-1', role: 'operator' },
    });
    const token = await httpCall<{ secret: string }>(coordinator.url, 'POST', '/v1/tokens', {
      headers: env.auth,
      body: { name: 'op', user_id: user.body.id },
    });
    const refused = await httpCall(coordinator.url, 'POST', '/v1/frontier/rebuild', {
      headers: { authorization: `Bearer ${token.body.secret}` },
    });
    expect(refused.status).toBe(403);

    const bin = fileURLToPath(new URL('../bin/crawler.mjs', import.meta.url));
    const cli = await new Promise<{ code: number; out: string; err: string }>((resolve) =>
      execFile(
        process.execPath,
        [bin, 'frontier', 'rebuild'],
        {
          env: {
            ...process.env,
            COORDINATOR_URL: coordinator.url,
            CRAWLER_API_TOKEN: env.admin.token,
          },
          timeout: 120_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, err: stderr }),
      ),
    );
    expect(cli.code, cli.err).toBe(0);
    expect(JSON.parse(cli.out)).toMatchObject({
      status: 'done',
      report: { reason: 'manual', seeds: 3, known_urls: 7 },
    });
  }, 180_000);

  it('answers `running` for a long rebuild, refuses a second one meanwhile, then reports it', async () => {
    const s = services();
    const started = await requestFrontierRebuild(s, SYSTEM, 0);
    expect(started).toMatchObject({ status: 'running', reason: 'manual', report: null });
    await expect(requestFrontierRebuild(s, SYSTEM, 0)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    let status = getFrontierRebuild(s);
    for (let i = 0; i < 300 && status.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = getFrontierRebuild(s);
    }
    expect(status).toMatchObject({ status: 'done', report: { enqueued: 0 } });
  });
});
