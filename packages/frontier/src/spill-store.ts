import type pg from 'pg';
import type { OverflowEntry, RefillNeed } from './spill';
import { packSpillEntry, unpackSpillEntry } from './spill-entry';

/** A refill batch recorded in Postgres: its rows are out of the spill until it is confirmed. */
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
 * (spill-entry.ts); `frontier_refill_batch` holds the rows a refill batch took out, until Redis
 * has them (spill-pump.ts). Only the coordinator (and tests) use it: agents never talk to
 * Postgres.
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
   * Takes the first rows (spill order) each need wants out of the spill and records them under
   * `batch` (frontier_refill_batch), in one statement: the rows are either still spilled or in
   * the batch's record, whatever happens. Returns each need's entries, in order.
   */
  async claim(shard: number, batch: string, needs: readonly RefillNeed[]): Promise<string[][]> {
    const out = needs.map((): string[] => []);
    if (needs.length === 0) return out;
    const { rows } = await this.pool.query<{ ord: string; entry: string }>(
      `WITH want AS (
         SELECT w.ord, h.id AS host_id, w.tier, w.n
         FROM unnest($3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS w(host, tier, n, ord)
         JOIN frontier_spill_host h ON h.prefix = $1 AND h.host = w.host),
       picked AS (
         SELECT w.ord, s.host_id, s.tier, s.seq FROM want w CROSS JOIN LATERAL (
           SELECT host_id, tier, seq FROM frontier_spill
           WHERE host_id = w.host_id AND tier = w.tier ORDER BY seq LIMIT w.n) s),
       gone AS (
         DELETE FROM frontier_spill f USING picked p
         WHERE f.host_id = p.host_id AND f.tier = p.tier AND f.seq = p.seq
         RETURNING p.ord, f.host_id, f.tier, f.seq, f.entry),
       rec AS (
         INSERT INTO frontier_refill_batch (batch, prefix, shard, rows)
         SELECT $2, $1, $6, json_agg(json_build_array(host_id, tier, seq, entry)) FROM gone
         HAVING count(*) > 0)
       SELECT ord, entry FROM gone ORDER BY ord, seq`,
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

  /** Drops the records of batches Redis has applied (their rows are in the heads now). */
  async confirm(batches: readonly string[]): Promise<void> {
    if (batches.length === 0) return;
    await this.pool.query(`DELETE FROM frontier_refill_batch WHERE batch = ANY($1::text[])`, [
      batches,
    ]);
  }

  /** Puts a batch's rows back into the spill (Redis never applied it) and drops its record. */
  async restore(batch: string): Promise<void> {
    await this.pool.query(
      `WITH rec AS (DELETE FROM frontier_refill_batch WHERE batch = $1 RETURNING rows)
       INSERT INTO frontier_spill (seq, host_id, tier, entry)
       SELECT (r->>2)::bigint, (r->>0)::int, r->>1, r->>3
       FROM rec CROSS JOIN LATERAL json_array_elements(rec.rows) AS r
       ON CONFLICT DO NOTHING`,
      [batch],
    );
  }

  /** The shard's batches recorded and not dropped (a refiller stopped before confirming). */
  async claimed(shard: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ batch: string }>(
      `SELECT batch FROM frontier_refill_batch WHERE prefix = $1 AND shard = $2`,
      [this.prefix, shard],
    );
    return rows.map((r) => r.batch);
  }

  /** Rows spilled, in the spill or in a batch's record. */
  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM frontier_spill s JOIN frontier_spill_host h ON h.id = s.host_id
                WHERE h.prefix = $1)
            + (SELECT coalesce(sum(json_array_length(rows)), 0) FROM frontier_refill_batch
                WHERE prefix = $1) AS n`,
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
