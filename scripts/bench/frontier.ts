import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Frontier, type EnqueueUrl } from '@crawler/frontier';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { measureSeenFalsePositives } from './frontier-seen';
import { openBenchSpill, type BenchSpill } from './frontier-spill';

/**
 * The frontier alone against the local Redis: enqueue with dedupe, Redis memory per queued URL,
 * lease + complete throughput, and the Bloom filter's false-positive rate against theory.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      urls: { type: 'string', default: '1000000' },
      hosts: { type: 'string', default: '100000' },
      shards: { type: 'string', default: '64' },
      'redis-url': { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      // URLs per host tier kept in Redis, the rest spilled to Postgres (0: every URL in Redis).
      'head-max': { type: 'string', default: '128' },
    },
  });
  const nUrls = Number(values.urls);
  const nHosts = Number(values.hosts);
  const shards = Number(values.shards);
  const concurrency = Number(values.concurrency);
  const prefix = `bench-frontier-${randomBytes(4).toString('hex')}`;
  // A Redis of its own (unless --redis-url), so memory and CPU figures are the frontier's alone.
  const own = values['redis-url'] ? null : await startRedis();
  const redis = await connectRedis(values['redis-url'] ?? own!.url);
  const frontier = new Frontier(redis, {
    prefix,
    shards,
    leaseMs: 300_000,
    maxUrlsPerLease: 50,
    defaultGapMs: 0,
    dailyBudget: 0,
    seen: { mode: 'bloom', expectedUrls: nUrls, bitsPerUrl: 10, hashes: 7 },
    headMax: Number(values['head-max']),
  });
  const spill: BenchSpill | null = frontier.spill.enabled ? await openBenchSpill(frontier) : null;
  try {
    // URLs like a crawl's: ~60 characters, `nUrls / nHosts` per host, arriving host by host as
    // links discovered on a host's pages do (mostly same-host), so a batch of 1,000 holds ~100 hosts.
    // Generated a chunk of batches at a time, outside the timed part (10M URLs held at once would
    // take gigabytes of the bench's heap; hashing them inside it would time the bench, not Redis).
    console.error(`enqueue ${nUrls} URLs over ${nHosts} hosts`);
    const perHost = Math.ceil(nUrls / nHosts);
    const urlAt = (i: number): EnqueueUrl => {
      const host = `host${Math.floor(i / perHost)}.example.com`;
      const url = `https://${host}/articles/${i % perHost}/page-${i}.html`;
      return { url, urlFp: fp(url), host, depth: 1, source: 'link' };
    };
    const memBefore = await usedMemory(redis);

    // 1. Enqueue in batches of 1,000, with 10% of every batch repeated (dedupe on the path).
    const nBatches = Math.ceil(nUrls / 1000);
    const batchAt = (b: number): EnqueueUrl[] => {
      const batch: EnqueueUrl[] = [];
      for (let i = b * 1000; i < Math.min(nUrls, (b + 1) * 1000); i++) batch.push(urlAt(i));
      return batch.concat(batch.slice(0, 100));
    };
    const redisCpu0 = await redisCpuS(redis);
    let accepted = 0;
    let offered = 0;
    let enqueueMs = 0;
    let clientCpuUs = 0;
    for (let first = 0; first < nBatches; first += CHUNK_BATCHES) {
      const chunk = Array.from({ length: Math.min(CHUNK_BATCHES, nBatches - first) }, (_, i) =>
        batchAt(first + i),
      );
      const t = performance.now();
      const cpu0 = process.cpuUsage();
      await pool(chunk.length, concurrency, async (i) => {
        const b = chunk[i]!;
        offered += b.length;
        const r = await frontier.enqueue(b);
        accepted += r.accepted;
      });
      const cpu = process.cpuUsage(cpu0);
      clientCpuUs += cpu.user + cpu.system;
      enqueueMs += performance.now() - t;
    }
    const enqueueS = enqueueMs / 1000;
    const enqueueClientCpuS = clientCpuUs / 1e6;
    const enqueueRedisCpuS = (await redisCpuS(redis)) - redisCpu0;
    // Redis memory is measured once the spiller has copied the overflow out (as it does live).
    await spill?.drainOverflow();
    const stats = await frontier.stats();
    const memAfter = await usedMemory(redis);

    // 2. Bloom: probe URLs never inserted.
    console.error('bloom probe');
    const probes = Array.from({ length: 200_000 }, (_, i) => {
      const host = `host${i % nHosts}.example.com`;
      return { urlFp: fp(`https://${host}/never/${i}`), host };
    });
    let falsePositives = 0;
    for (let i = 0; i < probes.length; i += 5000) {
      falsePositives += (await frontier.seenBatch(probes.slice(i, i + 5000))).filter(
        Boolean,
      ).length;
    }
    // Over the layers the filters opened (includes/seen-set.lua), as recorded.
    const theory = await frontier.urls.seenSet.falsePositiveRate();

    // 3. Lease + complete everything, several agents at once.
    console.error('lease + complete');
    const t0 = performance.now();
    spill?.startRefilling();
    let done = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, a) => {
        for (let waits = 0; ;) {
          const leases = await frontier.lease(`bench-${a}`, 200);
          if (leases.length > 0) waits = 0;
          else if (!(await refillsPending(frontier, spill, accepted - done, waits++))) break;
          await Promise.all(
            leases.map((l) =>
              frontier.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 1 }),
            ),
          );
          done += leases.reduce((x, l) => x + l.urls.length, 0);
        }
      }),
    );
    const leaseS = (performance.now() - t0) / 1000;
    await spill?.stopRefilling();
    // 4. The seen set at 10× its sizing, on a filter of its own.
    console.error('seen set at 10x its sizing');
    const seenFp = await measureSeenFalsePositives(redis, { prefix, urls: nUrls, shards });

    return {
      bench: 'frontier',
      urls: nUrls,
      hosts: nHosts,
      shards,
      enqueue_per_s: Math.round(offered / enqueueS),
      enqueue_redis_cpu_s: Number(enqueueRedisCpuS.toFixed(2)),
      enqueue_client_cpu_s: Number(enqueueClientCpuS.toFixed(2)),
      enqueue_wall_s: Number(enqueueS.toFixed(2)),
      accepted,
      queued_urls: stats.queuedUrls,
      redis_bytes_per_queued_url: Math.round((memAfter - memBefore) / stats.queuedUrls),
      lease_complete_urls_per_s: Math.round(done / leaseS),
      leased_urls: done,
      bloom_fp_rate: Number((falsePositives / probes.length).toFixed(5)),
      bloom_fp_theory: Number(theory.toFixed(5)),
      ...seenFp,
      head_max: Number(values['head-max']),
      ...(spill ? await spill.fields(stats.spilledUrls) : {}),
    };
  } finally {
    await spill?.close();
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
    own?.stop();
  }
}

/**
 * With bounded heads, an empty lease may only mean the heads wait for the refiller: true (after a
 * short pause) while accepted URLs are still to be leased (`left`). The frontier's own isIdle (a
 * script on every shard) is asked only every 100th wait, so waiting agents do not load Redis;
 * it ends the loop should URLs go missing (leased_urls then says so).
 */
async function refillsPending(
  frontier: Frontier,
  spill: BenchSpill | null,
  left: number,
  waits: number,
): Promise<boolean> {
  if (!spill || left <= 0) return false;
  if (waits % 100 === 99 && (await frontier.isIdle())) return false;
  await sleep(5);
  return true;
}

/** Starts a throwaway redis-server on a free loopback port (no persistence). */
async function startRedis(): Promise<{ url: string; stop(): void }> {
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 50; i++) {
    await sleep(100);
    try {
      const r = await connectRedis(`redis://127.0.0.1:${port}`);
      r.disconnect();
      return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
    } catch {
      // not up yet
    }
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

function fp(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

async function redisCpuS(redis: RedisClient): Promise<number> {
  const info = await redis.info('cpu');
  return (
    Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0) +
    Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0)
  );
}

async function usedMemory(redis: RedisClient): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

/** Batches of 1,000 URLs generated ahead of each timed part of the enqueue. */
const CHUNK_BATCHES = 200;

/** Runs fn(0 … count − 1), n at a time. */
async function pool(count: number, n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}
