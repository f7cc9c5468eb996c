import { afterAll, describe, expect, it } from 'vitest';
import { startTestRedisServer, testRedisBackends, type TestRedisServer } from '@crawler/testing';
import { checkRedisDurability, RedisNotDurableError } from './check-redis-durability';
import { connectRedis, type RedisClient } from './connect-redis';

// Real redis-servers of our own, each on a free loopback port in a folder of its own, started
// with the persistence and eviction settings under test.
const servers: TestRedisServer[] = [];
const clients: RedisClient[] = [];

async function server(args: string[]): Promise<RedisClient> {
  const s = await startTestRedisServer(args);
  servers.push(s);
  const c = await connectRedis(s.url);
  clients.push(c);
  return c;
}

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await Promise.all(servers.map((s) => s.stop()));
});

/** A log that keeps what it was told (the check's warnings are part of its contract). */
function captureLog() {
  const lines: Array<{ level: string; msg: string }> = [];
  return {
    lines,
    warn: (_obj: unknown, msg?: string) => void lines.push({ level: 'warn', msg: msg ?? '' }),
    info: (_obj: unknown, msg?: string) => void lines.push({ level: 'info', msg: msg ?? '' }),
  };
}

async function refusal(redis: RedisClient): Promise<RedisNotDurableError> {
  const err = await checkRedisDurability(redis, { volatileOk: false, log: captureLog() }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RedisNotDurableError);
  return err as RedisNotDurableError;
}

const problemsOf = (err: RedisNotDurableError) => err.problems.map((p) => p.problem);

describe('checkRedisDurability', () => {
  it('refuses a Redis that persists nothing, naming the node and the fix', async () => {
    const redis = await server(['--save', '', '--appendonly', 'no']);
    const err = await refusal(redis);
    expect(err.code).toBe('REDIS_NOT_DURABLE');
    expect(problemsOf(err)).toEqual(['not_persistent']);
    expect(err.problems[0]!.node).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(err.message).toContain('persists nothing');
    expect(err.message).toContain('redis-server --appendonly yes --appendfsync everysec');
    expect(err.message).toContain('CONFIG SET appendonly yes');
    expect(err.message).toContain('REDIS_VOLATILE_OK=true');

    // REDIS_VOLATILE_OK lets it through, saying so.
    const log = captureLog();
    const states = await checkRedisDurability(redis, { volatileOk: true, log });
    expect(states).toMatchObject([{ source: 'config', aof: false, rdb: false }]);
    expect(log.lines.map((l) => l.level)).toContain('info');
  });

  it('accepts a Redis with AOF, and one with RDB snapshots only (with a warning)', async () => {
    const aof = await server(['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '']);
    const log = captureLog();
    expect(await checkRedisDurability(aof, { volatileOk: false, log })).toMatchObject([
      { source: 'config', aof: true, rdb: false, evictionPolicy: 'noeviction' },
    ]);
    expect(log.lines).toEqual([]);

    const rdb = await server(['--appendonly', 'no', '--save', '3600 1']);
    const rdbLog = captureLog();
    expect(await checkRedisDurability(rdb, { volatileOk: false, log: rdbLog })).toMatchObject([
      { aof: false, rdb: true },
    ]);
    expect(rdbLog.lines.map((l) => l.level)).toEqual(['warn']);
    expect(rdbLog.lines[0]!.msg).toContain('RDB snapshots only');
  });

  it('refuses an evicting maxmemory-policy, even with AOF, unless REDIS_VOLATILE_OK', async () => {
    const redis = await server(['--appendonly', 'yes', '--maxmemory-policy', 'allkeys-lru']);
    const err = await refusal(redis);
    expect(problemsOf(err)).toEqual(['evicts_keys']);
    expect(err.message).toContain('maxmemory-policy');
    expect(err.message).toContain('noeviction');
    await expect(
      checkRedisDurability(redis, { volatileOk: true, log: captureLog() }),
    ).resolves.toMatchObject([{ evictionPolicy: 'allkeys-lru' }]);
  });

  it('falls back to INFO where CONFIG is disabled, and warns when it cannot tell', async () => {
    const aof = await server(['--rename-command', 'CONFIG', '', '--appendonly', 'yes']);
    const log = captureLog();
    expect(await checkRedisDurability(aof, { volatileOk: false, log })).toMatchObject([
      { source: 'info', aof: true, rdb: null, evictionPolicy: 'noeviction' },
    ]);
    expect(log.lines).toEqual([]);

    // AOF off, and RDB save points cannot be read: a warning, not a refusal.
    const unknown = await server([
      '--rename-command',
      'CONFIG',
      '',
      '--appendonly',
      'no',
      '--save',
      '',
    ]);
    const unknownLog = captureLog();
    expect(
      await checkRedisDurability(unknown, { volatileOk: false, log: unknownLog }),
    ).toMatchObject([{ source: 'info', aof: false, rdb: null }]);
    expect(unknownLog.lines.map((l) => l.level)).toEqual(['warn']);
    expect(unknownLog.lines[0]!.msg).toContain('cannot be checked');

    // INFO still tells the eviction policy.
    const evicting = await server([
      ...['--rename-command', 'CONFIG', '', '--appendonly', 'yes'],
      ...['--maxmemory-policy', 'volatile-lru'],
    ]);
    expect(problemsOf(await refusal(evicting))).toEqual(['evicts_keys']);
  });
});

const cluster = testRedisBackends().find((b) => b.cluster)!;
describe.skipIf(cluster.skip)('checkRedisDurability on a Redis Cluster', () => {
  it('checks every master (the test cluster persists nothing)', async () => {
    const redis = await cluster.connect();
    try {
      const err = await refusal(redis);
      const nodes = new Set(err.problems.map((p) => p.node));
      expect(nodes.size).toBe(3);
      expect(err.problems.every((p) => p.problem === 'not_persistent')).toBe(true);
    } finally {
      redis.disconnect();
    }
  });
});
