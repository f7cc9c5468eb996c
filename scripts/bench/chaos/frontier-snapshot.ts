import type { Frontier } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { scanKeys } from '@crawler/adapters/redis';

/** What the frontier holds at the end, read straight from Redis (normalized URLs). */
export interface FrontierSnapshot {
  /** URLs in a host's queues (`q0`…`q9`, `qr`) or in a lease's batch (`lq`). */
  queued: Set<string>;
  /** Of `queued`, those in lease batches (leases of killed agents not yet reclaimed). */
  inLeases: number;
  /** Dead-lettered URLs. */
  dead: Set<string>;
}

/** A host queue (`…:q<tier>:<host>`) or a lease batch (`…:lq:<host>`) of the frontier. */
const QUEUE_KEY = /^[^{]*\{\d+\}:(q[0-9r]?|lq):/;

/** The URL of a queue entry: the last field, after five `|` (six in a lease batch: its tier). */
function urlOfEntry(entry: string, leased: boolean): string | null {
  let at = -1;
  for (let i = 0; i < (leased ? 6 : 5); i++) {
    at = entry.indexOf('|', at + 1);
    if (at < 0) return null;
  }
  return entry.slice(at + 1);
}

/**
 * Reads every queued URL (host queues and lease batches, by SCAN over the frontier's key
 * names as `FrontierKeys` builds them) and every dead letter (`Frontier.deadLetterPage`).
 * Call it when no agent runs: the lists then hold exactly what is left to fetch.
 */
export async function snapshotFrontier(
  redis: RedisClient,
  frontier: Frontier,
  prefix: string,
): Promise<FrontierSnapshot> {
  const queued = new Set<string>();
  let inLeases = 0;
  await scanKeys(redis, `${prefix}:{*}:*q*:*`, async (keys) => {
    for (const key of keys) {
      const kind = QUEUE_KEY.exec(key.slice(prefix.length + 1))?.[1];
      if (kind === undefined) continue;
      const leased = kind === 'lq';
      for (const entry of await redis.lrange(key, 0, -1)) {
        const url = urlOfEntry(entry, leased);
        if (url === null) continue;
        queued.add(url);
        if (leased) inLeases++;
      }
    }
  });
  const dead = new Set<string>();
  let from: { shard: number; offset: number } | undefined;
  for (;;) {
    const page = await frontier.deadLetterPage({ limit: 1000, ...(from ? { from } : {}) });
    for (const d of page.items) dead.add(d.url);
    if (page.next === null) break;
    from = page.next;
  }
  return { queued, inLeases, dead };
}
