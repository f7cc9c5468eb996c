import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Frontier } from '@crawler/frontier';
import { createLogger } from '@crawler/adapters/log';
import { urlFingerprint } from '@crawler/domain/url';
import {
  bullmqConnection,
  closeBullmqConnection,
  redisErrorCode,
  scanKeys,
  type RedisClient,
} from '@crawler/adapters/redis';
import {
  deleteKeysWithPrefix,
  keySlot,
  readClusterNodes,
  sharedLocalRedisCluster,
  slotOwner,
  testRedisBackends,
  uniquePrefix,
} from '@crawler/testing';
import { bullPrefix } from '../keys';
import { RecrawlStore, type ObservedRow } from './recrawl-store';
import { RecrawlSweeper, type SweepResult } from './recrawl-sweeper';

// The re-crawl sweep as the coordinator runs it: a BullMQ job scheduler and worker, on a single
// Redis and on the local 3-master Redis Cluster. On the cluster the queue's slot is owned by a
// node other than the one REDIS_URL names, so a plain connection to that node gets MOVED for
// every BullMQ call: the sweep only runs when BullMQ's connection is a cluster client.

const bounds = { minMs: 1000, maxMs: 100_000_000, initialMs: 10_000 };
const URLS = 30;
const log = createLogger('recrawl-sweeper-test', 'silent');

/** A 200 capture of URL `n`, an hour ago: due now. Five hosts, so several shards. */
function capture(n: number, at: number): ObservedRow {
  const url = `https://h${n % 5}.example/p/${n}`;
  return {
    url_fp: urlFingerprint(url),
    url,
    host: `h${n % 5}.example`,
    depth: 1,
    status: 200,
    fetched_at: new Date(at),
    change: 'new',
    record_type: 'response',
    etag: `"e${n}"`,
    last_modified: '',
    record_id: `<urn:uuid:${n}>`,
    payload_digest: `sha1:X${n}`,
    content_hash: 'ab'.repeat(32),
  };
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== null) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Names of the clients connected to each master (`CLIENT LIST`). */
async function clientNames(redis: RedisClient): Promise<string[]> {
  const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
  const lists = await Promise.all(nodes.map((n) => n.client('LIST') as Promise<string>));
  return lists.flatMap((l) => [...l.matchAll(/ name=(\S*)/g)].map((m) => m[1] ?? ''));
}

for (const backend of testRedisBackends()) {
  describe.skipIf(backend.skip)(`RecrawlSweeper via BullMQ on ${backend.name}`, () => {
    let redis: RedisClient;
    let url: string;
    let prefix: string;

    beforeAll(async () => {
      redis = await backend.connect();
      if (!backend.cluster) {
        url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
        prefix = uniquePrefix('recrawl-sweep');
        return;
      }
      const cluster = await sharedLocalRedisCluster();
      url = cluster.url;
      const seedPort = Number(new URL(url).port);
      const nodes = await readClusterNodes(seedPort);
      // A prefix whose BullMQ slot the seed node does not own.
      do prefix = uniquePrefix('recrawl-sweep');
      while (slotOwner(nodes, keySlot(bullPrefix(prefix)))?.port === seedPort);
    });
    afterAll(async () => {
      if (!redis) return;
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    });

    it('runs the scheduled sweep, which moves due URLs into the frontier', async () => {
      const bull = bullPrefix(prefix);
      const slot = keySlot(bull);
      if (backend.cluster) {
        // What the sweeper's connection was before: a plain client of the URL's node.
        const plain = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
        try {
          const err = await plain.exists(`${bull}:recrawl:meta`).then(
            () => null,
            (e: unknown) => e,
          );
          expect(redisErrorCode(err)).toBe('MOVED');
        } finally {
          plain.disconnect();
        }
      }

      const frontier = new Frontier(redis, { prefix, shards: 4 });
      const store = new RecrawlStore(redis, frontier, bounds);
      const at = Date.now() - 3_600_000;
      await store.observe(Array.from({ length: URLS }, (_, n) => capture(n, at)));
      expect((await frontier.stats()).queuedUrls).toBe(0);

      const sweeper = new RecrawlSweeper(store, frontier, 1000, log);
      await sweeper.start({ url, cluster: backend.cluster }, prefix, 250);
      let stopped = false;
      try {
        await waitFor('the due URLs in the frontier', async () =>
          (await frontier.stats()).queuedUrls === URLS ? true : null,
        );
        // The sweeper's connections carry the queue's name: the one the queue and the worker
        // share, and the worker's blocking one (`<bull prefix>:<base64 queue name>`).
        const named = (await clientNames(redis)).filter((n) => n.startsWith(bull));
        expect(named).toEqual(expect.arrayContaining([bull, `${bull}:cmVjcmF3bA==`]));

        // The job the scheduler made ran on the worker and returned the sweep's result.
        const reader = bullmqConnection(url, { cluster: backend.cluster });
        const queue = new Queue('recrawl', { connection: reader, prefix: bull });
        try {
          expect((await queue.getJobSchedulers()).map((s) => s.key)).toEqual(['recrawl-sweep']);
          const done = await waitFor('a completed sweep job', async () => {
            const jobs = await queue.getCompleted();
            return jobs.some((j) => (j.returnvalue as SweepResult | null)?.due === URLS)
              ? jobs
              : null;
          });
          expect(done.every((j) => j.name === 'sweep')).toBe(true);
          const results = done.map((j) => j.returnvalue as SweepResult);
          expect(results.reduce((a, r) => a + r.enqueued, 0)).toBe(URLS);
          expect(await queue.getFailedCount()).toBe(0);
        } finally {
          await queue.close();
          await closeBullmqConnection(reader);
        }

        // Every BullMQ key is in the queue's one slot (on the cluster: on its owner alone), and
        // every key of the test's prefix is the frontier's or BullMQ's.
        const keys: string[] = [];
        await scanKeys(redis, `*${prefix}*`, (batch) => void keys.push(...batch));
        const bullKeys = keys.filter((k) => k.startsWith(`${bull}:`));
        expect(bullKeys.length).toBeGreaterThan(3);
        expect(bullKeys).toContain(`${bull}:recrawl:repeat`);
        expect(new Set(bullKeys.map(keySlot))).toEqual(new Set([slot]));
        expect(
          keys.filter((k) => !k.startsWith(`${bull}:`) && !k.startsWith(`${prefix}:`)),
        ).toEqual([]);
        if ('nodes' in redis) {
          const holders = [];
          for (const node of redis.nodes('master')) {
            let found = 0;
            await scanKeys(node, `${bull}:*`, (batch) => void (found += batch.length));
            if (found > 0) holders.push(node.options.port);
          }
          const owner = slotOwner(await readClusterNodes(Number(new URL(url).port)), slot);
          expect(holders).toEqual([owner?.port]);
          expect(owner?.port).not.toBe(Number(new URL(url).port));
        }

        await sweeper.stop();
        stopped = true;
        // Nothing of BullMQ's stays connected.
        await waitFor('the BullMQ connections to close', async () =>
          (await clientNames(redis)).some((n) => n.startsWith(bull)) ? null : true,
        );
      } finally {
        if (!stopped) await sweeper.stop();
      }
    });
  });
}
