import { createHash } from 'node:crypto';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { uniquePrefix } from '@crawler/testing';
import { Frontier, type FrontierOptions } from '../frontier';
import { SpillPump, type SpillRound } from '../spill-pump';
import { SpillStore } from '../spill-store';
import { unpackSpillEntry } from '../spill-entry';
import { spillTestDatabase, type SpillTestDatabase } from './spill-test-db';
import { PRIORITY_TIERS } from '../priority';
import type { EnqueueUrl, HostLease } from '../types';

/** Helpers shared by the frontier's integration tests. */

/** An EnqueueUrl for `http://<host>/<path>` with its url_fp. */
export function testUrl(host: string, path: string, extra: Partial<EnqueueUrl> = {}): EnqueueUrl {
  const u = `http://${host}/${path}`;
  return {
    url: u,
    urlFp: createHash('sha256').update(u).digest('hex').slice(0, 16),
    host,
    depth: 0,
    ...extra,
  };
}

/**
 * A host's lists as the scripts name them (`<shard prefix><list>:<host>`): its tier queues
 * q0…q9 and qr, then its leased list lq (always last).
 */
export const HOST_LISTS: readonly string[] = [
  ...Array.from({ length: PRIORITY_TIERS }, (_, t) => `q${t}`),
  'qr',
  'lq',
];

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Redis TIME in ms: the clock the scripts use. */
export async function serverNow(redis: RedisClient): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/**
 * A host's score in its shard's ready class sets (its next allowed time), or null when not
 * ready; throws when the host sits in more than one of them.
 */
export async function readyScore(
  redis: RedisClient,
  f: Frontier,
  host: string,
): Promise<number | null> {
  const scores = await Promise.all(
    f.keys.readyClasses(f.shardOf(host)).map((key) => redis.zscore(key, host)),
  );
  const found = scores.filter((s): s is string => s !== null);
  if (found.length > 1) throw new Error(`${host} is in ${found.length} ready class sets`);
  return found.length === 0 ? null : Number(found[0]);
}

/** Leases until a host comes back (polling every 10 ms), or [] after `timeoutMs`. */
export async function leaseWhenReady(f: Frontier, max = 1, timeoutMs = 3000): Promise<HostLease[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const leases = await f.lease('poller', max);
    if (leases.length > 0 || Date.now() > end) return leases;
    await sleep(10);
  }
}

/**
 * The head bound the test bed's frontiers run with: FRONTIER_TEST_HEAD_MAX (default 2, raised to
 * the lease batch size by the frontier), so spill and refill run under every test; 0 turns it off.
 */
export const TEST_HEAD_MAX = Number(process.env.FRONTIER_TEST_HEAD_MAX ?? 2);

/**
 * Gives a frontier a spill pump (its Postgres in `db`) that drains before every lease: the
 * overflow copied to Postgres and every low head refilled, as the coordinator's loop would
 * between leases.
 */
export function withSpillPump(f: Frontier, db: SpillTestDatabase): Frontier {
  const pump = new SpillPump(f.spill, new SpillStore(db.pool(), f.keys.prefix));
  const lease = f.lease.bind(f);
  f.lease = async (...a) => {
    await pump.drain();
    return lease(...a);
  };
  return f;
}

/** A spill pump running in the background (backgroundSpillPump). */
export interface BackgroundSpillPump {
  /** Failed rounds (the pump goes on after each, as the coordinator's loop does). */
  readonly errors: unknown[];
  /** Entries copied to Postgres and URLs brought back so far. */
  readonly totals: SpillRound;
  /** Stops after the current round. */
  stop(): Promise<void>;
}

/**
 * Runs a frontier's spill pump as the coordinator's loop does, for tests whose agents run on
 * their own: rounds back to back while they find work, `pauseMs` between rounds that find none,
 * until stopped. Give it a frontier of its own (its own connection), like the coordinator's.
 */
export function backgroundSpillPump(
  f: Frontier,
  db: SpillTestDatabase,
  pauseMs = 5,
): BackgroundSpillPump {
  const pump = new SpillPump(f.spill, new SpillStore(db.pool(), f.keys.prefix));
  const errors: unknown[] = [];
  const totals: SpillRound = { spilled: 0, refilled: 0 };
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      let idle = true;
      try {
        const r = await pump.round();
        totals.spilled += r.spilled;
        totals.refilled += r.refilled;
        idle = r.spilled === 0 && r.refilled === 0;
      } catch (err) {
        errors.push(err);
      }
      if (idle) await sleep(pauseMs);
    }
  })();
  return {
    errors,
    totals,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/**
 * Every queue entry a frontier holds spilled: in its shards' overflow lists and in Postgres
 * (read when no pump runs: the two are not read at one instant).
 */
export async function spilledEntries(f: Frontier, db: SpillTestDatabase): Promise<string[]> {
  const out: string[] = [];
  for (let s = 0; s < f.shards; s++)
    out.push(...(await f.spill.readOverflow(s, 1_000_000)).map((o) => o.entry));
  const { rows } = await db.pool().query<{ host: string; entry: string }>(
    `SELECT h.host, s.entry FROM frontier_spill s JOIN frontier_spill_host h ON h.id = s.host_id
     WHERE h.prefix = $1`,
    [f.keys.prefix],
  );
  out.push(...rows.map((r) => unpackSpillEntry(r.entry, r.host)));
  return out;
}

/**
 * One test file's Redis connection and frontiers: `make()` builds a Frontier under a fresh key
 * prefix (4 shards, 60 s leases, no gap unless overridden, heads bounded to TEST_HEAD_MAX with
 * a spill pump on a Postgres database of the file's own); `close()` deletes every prefix made
 * and the database. Call `open()` in beforeAll and `close()` in afterAll. `connect` chooses the
 * Redis (default: REDIS_URL, else the machine's).
 */
export function frontierTestBed(
  label: string,
  connect: () => Promise<RedisClient> = () =>
    connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
) {
  let client: RedisClient | undefined;
  const db = TEST_HEAD_MAX > 0 ? spillTestDatabase() : null;
  const prefixes: string[] = [];
  const redis = (): RedisClient => {
    if (!client) throw new Error('not connected');
    return client;
  };
  /** A fresh key prefix, deleted by close(). */
  const newPrefix = (): string => {
    const prefix = uniquePrefix(label);
    prefixes.push(prefix);
    return prefix;
  };
  return {
    redis,
    newPrefix,
    make: (opts: Partial<FrontierOptions> = {}): Frontier => {
      const prefix = newPrefix();
      const f = new Frontier(redis(), {
        prefix,
        shards: 4,
        leaseMs: 60_000,
        maxUrlsPerLease: 10,
        defaultGapMs: 0,
        headMax: TEST_HEAD_MAX,
        ...opts,
      });
      return db && f.spill.enabled ? withSpillPump(f, db) : f;
    },
    open: async (): Promise<void> => {
      client = await connect();
      await db?.open();
    },
    close: async (): Promise<void> => {
      await db?.close();
      if (!client) return;
      for (const p of prefixes) await deleteKeysWithPrefix(client, p);
      client.disconnect();
    },
  };
}
