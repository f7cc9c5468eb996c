import type { Frontier } from '@crawler/frontier';
import { SpillPump, SpillStore } from '@crawler/frontier';
import { spillTestDatabase } from '../../packages/frontier/src/testing/spill-test-db';

/**
 * The frontier bench's spill half (heads bounded by --head-max): a throw-away Postgres database
 * for frontier_spill, the spiller run to the end after the enqueue (so Redis memory is measured
 * with the overflow copied out), a refiller running in the background while leases drain the
 * heads, and the spill's size per URL.
 */
export interface BenchSpill {
  /** Copies every shard's overflow into Postgres; returns entries copied and seconds taken. */
  drainOverflow(): Promise<{ copied: number; seconds: number }>;
  /** Starts refilling in the background (rounds until stopped). */
  startRefilling(): void;
  /** Stops the background refiller. */
  stopRefilling(): Promise<void>;
  /** The bench line's spill fields. */
  fields(spilledUrls: number): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** Opens the spill of a bench frontier (its key prefix) on the machine's Postgres. */
export async function openBenchSpill(frontier: Frontier): Promise<BenchSpill> {
  const db = spillTestDatabase();
  await db.open();
  const store = new SpillStore(db.pool(), frontier.keys.prefix);
  // The refiller on a connection of its own, as the coordinator's (spill-loop.ts).
  const spill = frontier.spill.withOwnConnection();
  const pump = new SpillPump(spill, store);
  let drained = { copied: 0, seconds: 0 };
  let running: Promise<void> | null = null;
  let stop = false;
  const refilled = { urls: 0 };
  return {
    async drainOverflow() {
      const t0 = performance.now();
      let copied = 0;
      // Shards in parallel, a few at a time (each shard's copy is sequential).
      const shards = Array.from({ length: frontier.shards }, (_, s) => s);
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let s = shards.shift(); s !== undefined; s = shards.shift())
            copied += await pump.spillShard(s);
        }),
      );
      drained = { copied, seconds: (performance.now() - t0) / 1000 };
      return drained;
    },
    startRefilling() {
      running = (async () => {
        while (!stop) {
          const r = await pump.round();
          refilled.urls += r.refilled;
          if (r.refilled === 0 && r.spilled === 0) await new Promise((res) => setTimeout(res, 5));
        }
      })();
    },
    async stopRefilling() {
      stop = true;
      await running;
    },
    async fields(spilledUrls) {
      const { rows } = await db.pool().query<{ b: string }>(
        `SELECT pg_total_relation_size('frontier_spill') + pg_total_relation_size('frontier_spill_host')
                + pg_total_relation_size('frontier_refill_batch') AS b`,
      );
      return {
        spilled_urls: spilledUrls,
        spill_bytes_per_url: spilledUrls > 0 ? Math.round(Number(rows[0]!.b) / spilledUrls) : 0,
        spill_copy_per_s: drained.seconds > 0 ? Math.round(drained.copied / drained.seconds) : 0,
        refilled_urls: refilled.urls,
      };
    },
    async close() {
      spill.close();
      await db.close();
    },
  };
}
