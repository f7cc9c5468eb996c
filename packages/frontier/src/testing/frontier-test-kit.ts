import { createHash } from 'node:crypto';
import type { RedisClient } from '@crawler/shared/redis';
import type { Frontier } from '../frontier';
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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Redis TIME in ms: the clock the scripts use. */
export async function serverNow(redis: RedisClient): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** A host's score in its shard's ready set (its next allowed time), or null when not ready. */
export async function readyScore(
  redis: RedisClient,
  f: Frontier,
  host: string,
): Promise<number | null> {
  const s = await redis.zscore(f.keys.ready(f.shardOf(host)), host);
  return s === null ? null : Number(s);
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
