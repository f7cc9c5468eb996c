import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { unpackSpillEntry, type EnqueueUrl } from '@crawler/frontier';
import { hostOf, urlFingerprint } from '@crawler/domain/url';
import { SYSTEM } from '../src/audit/audit-entry';
import { Coordinator } from '../src/coordinator';
import { readGenerationMarker } from '../src/frontier-rebuild/generation-marker';
import { rebuildFrontier } from '../src/frontier-rebuild/rebuild-frontier';
import { RebuildLock } from '../src/frontier-rebuild/rebuild-lock';
import { addSeeds } from '../src/seeds/add-seeds';
import { makeTestEnv, type TestEnv } from './test-env';

// A rebuild after a Redis loss that is stopped mid-way twice, while agents go on enqueuing into
// bounded heads (the spill pump copying what overflows into Postgres), then runs to its end:
// the spill rows written between the tries are this Redis's and stay, so every URL enqueued is
// in exactly one place (a head, an overflow list or a spill row) — none lost, none twice. And
// one rebuild runs at a time across coordinators. Real Postgres, Redis and chdb.
let env: TestEnv;
let coordinator: Coordinator;
let redis: RedisClient;
let db: pg.Pool;
const log = createLogger('frontier-rebuild-retry', 'silent');

const services = () => coordinator.services;
const urlsOf = (host: string, n: number): EnqueueUrl[] =>
  Array.from({ length: n }, (_, i) => {
    const url = `https://${host}/p${i}`;
    return { url, urlFp: urlFingerprint(url), host: hostOf(url), depth: 1 };
  });

/** What agents do: enqueue discovered URLs, then wait until the pump has copied the overflow. */
async function agentsEnqueue(urls: EnqueueUrl[]): Promise<void> {
  const { frontier } = services();
  const before = await spillRows();
  await frontier.enqueue(urls);
  for (let i = 0; i < 200 && (await spillRows()) <= before; i++)
    await new Promise((r) => setTimeout(r, 50));
  expect(await spillRows()).toBeGreaterThan(before);
}

async function spillRows(): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM frontier_spill s JOIN frontier_spill_host h ON h.id = s.host_id
      WHERE h.prefix = $1`,
    [env.config.REDIS_PREFIX],
  );
  return Number(rows[0]!.n);
}

/** Every URL the frontier holds for `hosts`: heads (every tier), overflow lists, spill rows. */
async function everyPlace(hosts: string[]): Promise<string[]> {
  const { frontier } = services();
  const tail = (entry: string) => entry.slice(entry.lastIndexOf('|') + 1);
  const out: string[] = [];
  for (const host of hosts) {
    const s = frontier.shardOf(host);
    for (const tier of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'r'])
      out.push(...(await redis.lrange(frontier.keys.tierQueue(s, tier, host), 0, -1)).map(tail));
  }
  for (let s = 0; s < frontier.shards; s++)
    out.push(...(await frontier.spill.readOverflow(s, 1_000_000)).map((o) => tail(o.entry)));
  const { rows } = await db.query<{ host: string; entry: string }>(
    `SELECT h.host, s.entry FROM frontier_spill s JOIN frontier_spill_host h ON h.id = s.host_id
      WHERE h.prefix = $1`,
    [env.config.REDIS_PREFIX],
  );
  out.push(...rows.map((r) => tail(unpackSpillEntry(r.entry, r.host))));
  return out.sort();
}

/** A rebuild stopped mid-way (the coordinator stopping): it fails, and writes no marker. */
async function stoppedRebuild(): Promise<void> {
  const stop = new AbortController();
  stop.abort();
  await expect(
    rebuildFrontier(services(), 'marker_missing', { signal: stop.signal }),
  ).rejects.toThrow();
  expect(await readGenerationMarker(redis, services().frontier.keys)).toBeNull();
}

beforeAll(async () => {
  env = makeTestEnv({
    RECRAWL_SWEEP_EVERY_MS: '0',
    FRONTIER_HEAD_MAX: '2',
    // A head is never smaller than a lease's batch.
    LEASE_MAX_URLS: '2',
    FRONTIER_SPILL_EVERY_MS: '20',
  });
  coordinator = await Coordinator.start(env.config, log);
  expect(await coordinator.generation.startup).toEqual({ action: 'initialised' });
  // The test runs the rebuilds itself: no background check starts one meanwhile.
  await coordinator.generation.stop();
  redis = await connectRedis(env.config.REDIS_URL);
  db = new pg.Pool({ connectionString: env.config.DATABASE_URL, max: 2 });
  await addSeeds(services(), SYSTEM, { urls: ['https://seeds.test/'], priority: 0 }, 'test');
}, 120_000);

afterAll(async () => {
  await coordinator?.stop();
  await db?.end();
  if (redis) {
    await deleteKeysWithPrefix(redis, env.config.REDIS_PREFIX);
    redis.disconnect();
  }
  await env?.cleanup();
});

describe('a frontier rebuild stopped and tried again', () => {
  it('loses and duplicates nothing spilled between its tries', async () => {
    const before = urlsOf('before.test', 20);
    await agentsEnqueue(before);
    // Redis is lost: what it held is gone (a rebuild restores seeds and what ClickHouse knows).
    await deleteKeysWithPrefix(redis, env.config.REDIS_PREFIX);

    await stoppedRebuild();
    const a = urlsOf('first-gap.test', 30);
    await agentsEnqueue(a);
    await stoppedRebuild();
    const b = urlsOf('second-gap.test', 30);
    await agentsEnqueue(b);
    const done = await rebuildFrontier(services(), 'marker_missing');
    expect(done.seeds_enqueued).toBe(1);
    expect(await readGenerationMarker(redis, services().frontier.keys)).not.toBeNull();

    const c = urlsOf('after.test', 10);
    await agentsEnqueue(c);
    // The pump stops with the coordinator (its last round finished): nothing moves any more.
    await coordinator.spill.stop();
    const hosts = ['first-gap.test', 'second-gap.test', 'after.test'];
    const want = [...a, ...b, ...c].map((u) => u.url).sort();
    expect(await everyPlace(hosts)).toEqual(want);
    // The rows of the Redis that was lost went with the first try (the rebuild requeues what
    // ClickHouse and Postgres know); none of them is left to be refilled into the new one.
    expect((await everyPlace(['before.test'])).filter((u) => u.includes('before.test'))).toEqual(
      [],
    );
  }, 120_000);

  it('runs one rebuild at a time across coordinators', async () => {
    const other = await RebuildLock.take(
      env.config.DATABASE_URL,
      env.config.REDIS_PREFIX,
      'coordinator-elsewhere',
      'manual',
      log,
    );
    if (!('lock' in other)) throw new Error('the lock should be free');
    try {
      await expect(rebuildFrontier(services(), 'manual')).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining('coordinator-elsewhere') as unknown,
      });
      expect(
        await RebuildLock.running(env.config.DATABASE_URL, env.config.REDIS_PREFIX),
      ).toMatchObject({ owner: 'coordinator-elsewhere', reason: 'manual' });
    } finally {
      await other.lock.release();
    }
    expect(await RebuildLock.running(env.config.DATABASE_URL, env.config.REDIS_PREFIX)).toBeNull();
    await expect(rebuildFrontier(services(), 'manual')).resolves.toMatchObject({
      reason: 'manual',
    });
    // A coordinator killed mid-rebuild leaves its run behind; started again under the same id,
    // it takes the run over at once instead of waiting for the lease to lapse.
    const killed = await RebuildLock.take(
      env.config.DATABASE_URL,
      env.config.REDIS_PREFIX,
      `coordinator-${env.config.coordinatorId}`,
      'manual',
      log,
    );
    if (!('lock' in killed)) throw new Error('the lock should be free');
    await expect(rebuildFrontier(services(), 'manual')).resolves.toMatchObject({
      reason: 'manual',
    });
    await killed.lock.release();
    expect(await RebuildLock.running(env.config.DATABASE_URL, env.config.REDIS_PREFIX)).toBeNull();
  }, 60_000);
});
