import type pg from 'pg';
import type { OverflowEntry, RefillNeed } from './spill';
import { packSpillEntry, unpackSpillEntry } from './spill-entry';

/** A refill batch recorded in Postgres: its rows are claimed until it is confirmed or released. */
export interface ClaimedBatch {
  shard: number;
  batch: string;
}

/** Host ids kept in memory before the cache starts over (a few MB). */
const HOST_CACHE_MAX = 100_000;

/**
 * The spilled URLs in Postgres (migrations `*_frontier_spill*`), one installation's (`prefix`):
 * `frontier_spill_host` names each host that ever spilled by a small id (never deleted, so an id
 * held in memory stays valid); `frontier_spill` holds one row per spilled URL, keyed by host id,
 * tier and the shard's spill sequence (which also makes the copy idempotent), its entry packed
 * (spill-entry.ts); `frontier_refill_batch` records the rows a refill batch claimed (a seq range
 * per host tier) until they are deleted (spill-pump.ts). Only the coordinator (and tests) use it:
 * agents never talk to Postgres.
 */
export class SpillStore {
  private readonly hostIds = new Map<string, number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly prefix: string,
  ) {}

  /** Copies overflow entries in; one already copied (same host, tier and seq) is skipped. */
  async insert(rows: readonly OverflowEntry[]): Promise<void> {
    if (rows.length === 0) return;
    const ids = await this.ids(rows.map((r) => r.host));
    await this.pool.query(
      `INSERT INTO frontier_spill (seq, host_id, tier, entry)
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
       ON CONFLICT DO NOTHING`,
      [
        rows.map((r) => r.seq),
        rows.map((r) => ids.get(r.host)),
        rows.map((r) => r.tier),
        rows.map((r) => packSpillEntry(r.entry, r.host)),
      ],
    );
  }

  /** The ids of hosts, creating the missing ones (one statement for those not cached). */
  private async ids(hosts: readonly string[]): Promise<Map<string, number>> {
    const missing = [...new Set(hosts)].filter((h) => !this.hostIds.has(h));
    if (missing.length > 0) {
      if (this.hostIds.size + missing.length > HOST_CACHE_MAX) this.hostIds.clear();
      // DO UPDATE (a no-op) returns the id of a host that exists, even one another
      // transaction has just created.
      const { rows } = await this.pool.query<{ id: number; host: string }>(
        `INSERT INTO frontier_spill_host (prefix, host) SELECT $1, unnest($2::text[])
         ON CONFLICT (prefix, host) DO UPDATE SET host = EXCLUDED.host
         RETURNING id, host`,
        [this.prefix, missing],
      );
      for (const r of rows) this.hostIds.set(r.host, r.id);
    }
    const out = new Map<string, number>();
    for (const h of hosts) out.set(h, this.hostIds.get(h)!);
    return out;
  }

  /**
   * Claims the first rows (spill order) each need wants under `batch`, in one statement: the
   * batch's record (frontier_refill_batch) keeps each host tier's claimed seq range, and the rows
   * stay until `confirm` deletes them (Redis has them) or `release` drops the record (it does
   * not). Returns each need's entries, in order.
   */
  async claim(shard: number, batch: string, needs: readonly RefillNeed[]): Promise<string[][]> {
    const out = needs.map((): string[] => []);
    if (needs.length === 0) return out;
    const { rows } = await this.pool.query<{ ord: string; entry: string }>(
      `WITH picked AS MATERIALIZED (
         SELECT w.ord, s.host_id, s.tier, s.seq, s.entry
         FROM unnest($3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS w(host, tier, n, ord)
         JOIN frontier_spill_host h ON h.prefix = $1 AND h.host = w.host
         CROSS JOIN LATERAL (
           SELECT host_id, tier, seq, entry FROM frontier_spill
           WHERE host_id = h.id AND tier = w.tier ORDER BY seq LIMIT w.n) s),
       ranges AS (
         SELECT json_build_array(host_id, tier, min(seq), max(seq)) AS r
         FROM picked GROUP BY host_id, tier),
       rec AS (
         INSERT INTO frontier_refill_batch (batch, prefix, shard, ranges)
         SELECT $2, $1, $6, json_agg(r) FROM ranges HAVING count(*) > 0)
       SELECT ord, entry FROM picked ORDER BY ord, seq`,
      [
        this.prefix,
        batch,
        needs.map((n) => n.host),
        needs.map((n) => n.tier),
        needs.map((n) => n.want),
        shard,
      ],
    );
    for (const r of rows) {
      const i = Number(r.ord) - 1;
      out[i]!.push(unpackSpillEntry(r.entry, needs[i]!.host));
    }
    return out;
  }

  /** Deletes a batch's rows (Redis has them) and its record, in one statement. */
  async confirm(batch: string): Promise<void> {
    await this.pool.query(
      `WITH rec AS (DELETE FROM frontier_refill_batch WHERE batch = $1 RETURNING ranges)
       DELETE FROM frontier_spill f
       USING rec CROSS JOIN LATERAL json_array_elements(rec.ranges) AS r
       WHERE f.host_id = (r->>0)::int AND f.tier = r->>1
         AND f.seq BETWEEN (r->>2)::bigint AND (r->>3)::bigint`,
      [batch],
    );
  }

  /** Drops a batch's record (Redis never applied it): its rows are unclaimed again. */
  async release(batch: string): Promise<void> {
    await this.pool.query(`DELETE FROM frontier_refill_batch WHERE batch = $1`, [batch]);
  }

  /** The shard's batches recorded and not dropped (a refiller stopped before confirming). */
  async claimed(shard: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ batch: string }>(
      `SELECT batch FROM frontier_refill_batch WHERE prefix = $1 AND shard = $2`,
      [this.prefix, shard],
    );
    return rows.map((r) => r.batch);
  }

  /** Rows spilled (claimed ones too, until confirmed). */
  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM frontier_spill s JOIN frontier_spill_host h ON h.id = s.host_id
       WHERE h.prefix = $1`,
      [this.prefix],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Forgets the installation's spill (a frontier rebuild: the Redis counters that account for
   * it are gone, and the rebuild queues the unfetched URLs again). Host ids stay. Returns rows
   * deleted.
   */
  async clear(): Promise<number> {
    await this.pool.query(`DELETE FROM frontier_refill_batch WHERE prefix = $1`, [this.prefix]);
    const r = await this.pool.query(
      `DELETE FROM frontier_spill WHERE host_id IN
         (SELECT id FROM frontier_spill_host WHERE prefix = $1)`,
      [this.prefix],
    );
    return r.rowCount ?? 0;
  }
}
