import type pg from 'pg';
import type { OverflowEntry, RefillNeed } from './spill';
import { packSpillEntry, unpackSpillEntry } from './spill-entry';
import { SpillFencedError } from './spill-fence';

/** A refill batch recorded in Postgres: its rows are claimed until it is confirmed or released. */
export interface ClaimedBatch {
  shard: number;
  batch: string;
}

/** The spill pump's ownership of an installation's spill (frontier_spill_owner). */
export interface SpillOwnership {
  /** Raised at every takeover and every clear: each write of a pump checks its own. */
  epoch: number;
  /** The Redis dataset the rows belong to. */
  dataset: string;
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
 *
 * Ownership is kept where the rows are: `frontier_spill_owner` holds the pump's lease and an
 * epoch raised at every takeover ({@link acquire}) and clear ({@link resetDataset}). Every write
 * of a pump (copy, claim, confirm, release) runs in a transaction that first reads the epoch
 * under the row's share lock and refuses ({@link SpillFencedError}) when it is not the pump's:
 * a takeover waits for writes in flight, and a pump that lost its turn changes nothing. The
 * Redis scripts check the same epoch per shard (spill.ts: holdShard).
 */
export class SpillStore {
  private readonly hostIds = new Map<string, number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly prefix: string,
  ) {}

  /** Copies overflow entries in; one already copied (same host, tier and seq) is skipped. */
  async insert(epoch: number, rows: readonly OverflowEntry[]): Promise<void> {
    if (rows.length === 0) return;
    const ids = await this.ids(rows.map((r) => r.host));
    await this.fenced(epoch, 'copy overflow', (c) =>
      c.query(
        `INSERT INTO frontier_spill (seq, host_id, tier, entry)
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
       ON CONFLICT DO NOTHING`,
        [
          rows.map((r) => r.seq),
          rows.map((r) => ids.get(r.host)),
          rows.map((r) => r.tier),
          rows.map((r) => packSpillEntry(r.entry, r.host)),
        ],
      ),
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
   * not). A host tier some other open batch of the shard holds rows of wants nothing this time
   * (its rows are that batch's until it is settled). Returns each need's entries, in order.
   */
  async claim(
    epoch: number,
    shard: number,
    batch: string,
    needs: readonly RefillNeed[],
  ): Promise<string[][]> {
    const out = needs.map((): string[] => []);
    if (needs.length === 0) return out;
    const { rows } = await this.fenced(epoch, 'claim a refill batch', (c) =>
      c.query<{ ord: string; entry: string }>(
        `WITH picked AS MATERIALIZED (
           SELECT w.ord, s.host_id, s.tier, s.seq, s.entry
           FROM unnest($3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS w(host, tier, n, ord)
           JOIN frontier_spill_host h ON h.prefix = $1 AND h.host = w.host
           CROSS JOIN LATERAL (
             SELECT host_id, tier, seq, entry FROM frontier_spill
             WHERE host_id = h.id AND tier = w.tier ORDER BY seq LIMIT w.n) s
           WHERE NOT EXISTS (
             SELECT 1 FROM frontier_refill_batch b, json_array_elements(b.ranges) r
             WHERE b.prefix = $1 AND b.shard = $6 AND (r->>0)::int = h.id AND r->>1 = w.tier)),
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
      ),
    );
    for (const r of rows) {
      const i = Number(r.ord) - 1;
      out[i]!.push(unpackSpillEntry(r.entry, needs[i]!.host));
    }
    return out;
  }

  /**
   * Deletes a batch's rows (Redis has them) and its record, in one statement.
   * @throws SpillFencedError when the batch's record is gone (another pump settled it) or the
   *   spill is no longer this pump's
   */
  async confirm(epoch: number, batch: string): Promise<void> {
    const { rows } = await this.fenced(epoch, 'confirm a refill batch', (c) =>
      c.query<{ batches: string }>(
        `WITH rec AS (DELETE FROM frontier_refill_batch WHERE batch = $1 RETURNING ranges),
         del AS (
           DELETE FROM frontier_spill f
           USING rec CROSS JOIN LATERAL json_array_elements(rec.ranges) AS r
           WHERE f.host_id = (r->>0)::int AND f.tier = r->>1
             AND f.seq BETWEEN (r->>2)::bigint AND (r->>3)::bigint)
         SELECT count(*) AS batches FROM rec`,
        [batch],
      ),
    );
    if (Number(rows[0]?.batches ?? 0) === 0)
      throw new SpillFencedError(
        `refill batch ${batch} has no record any more: another pump settled it`,
      );
  }

  /**
   * Deletes the spilled rows of parked hosts' tiers (they are never brought back into Redis),
   * except rows an open batch holds. Returns, per need, the rows deleted and whether any are left.
   */
  async dropRows(
    epoch: number,
    shard: number,
    needs: readonly { host: string; tier: string }[],
  ): Promise<{ dropped: number; left: boolean }[]> {
    if (needs.length === 0) return [];
    const { rows } = await this.fenced(epoch, 'drop a parked host’s rows', (c) =>
      c.query<{ ord: string; dropped: string; left: boolean }>(
        `WITH w AS (
           SELECT w.ord, h.id AS host_id, w.tier
           FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS w(host, tier, ord)
           JOIN frontier_spill_host h ON h.prefix = $1 AND h.host = w.host),
         held AS (
           SELECT (r->>0)::int AS host_id, r->>1 AS tier, (r->>2)::bigint AS lo, (r->>3)::bigint AS hi
           FROM frontier_refill_batch b, json_array_elements(b.ranges) r
           WHERE b.prefix = $1 AND b.shard = $4),
         del AS (
           DELETE FROM frontier_spill f USING w
           WHERE f.host_id = w.host_id AND f.tier = w.tier
             AND NOT EXISTS (SELECT 1 FROM held
               WHERE held.host_id = f.host_id AND held.tier = f.tier AND f.seq BETWEEN held.lo AND held.hi)
           RETURNING w.ord)
         SELECT w.ord,
           (SELECT count(*) FROM del WHERE del.ord = w.ord) AS dropped,
           EXISTS (SELECT 1 FROM held WHERE held.host_id = w.host_id AND held.tier = w.tier) AS left
         FROM w`,
        [this.prefix, needs.map((n) => n.host), needs.map((n) => n.tier), shard],
      ),
    );
    const out = needs.map(() => ({ dropped: 0, left: false }));
    for (const r of rows) out[Number(r.ord) - 1] = { dropped: Number(r.dropped), left: r.left };
    return out;
  }

  /** Drops a batch's record (Redis never applied it): its rows are unclaimed again. */
  async release(epoch: number, batch: string): Promise<void> {
    await this.fenced(epoch, 'release a refill batch', (c) =>
      c.query(`DELETE FROM frontier_refill_batch WHERE batch = $1`, [batch]),
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

  /** Rows spilled (claimed ones too, until confirmed). */
  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM frontier_spill s JOIN frontier_spill_host h ON h.id = s.host_id
       WHERE h.prefix = $1`,
      [this.prefix],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The installation's ownership row: epoch and dataset (null before the first dataset). */
  async ownership(): Promise<{ epoch: number; dataset: string | null; owner: string | null }> {
    const { rows } = await this.pool.query<{
      epoch: string;
      dataset: string | null;
      owner: string | null;
    }>(`SELECT epoch, dataset, owner FROM frontier_spill_owner WHERE prefix = $1`, [this.prefix]);
    const row = rows[0];
    return row
      ? { epoch: Number(row.epoch), dataset: row.dataset, owner: row.owner }
      : { epoch: 0, dataset: null, owner: null };
  }

  /**
   * Takes the pump's lease for `owner` under a new epoch, when no other owner's lease is live
   * and the rows belong to `dataset` (the Redis dataset the pump works). Null when refused:
   * another pump holds it, or the rows are another dataset's (a rebuild must settle that first).
   */
  async acquire(owner: string, dataset: string, leaseMs: number): Promise<SpillOwnership | null> {
    const { rows } = await this.pool.query<{ epoch: string }>(
      `UPDATE frontier_spill_owner
          SET epoch = epoch + 1, owner = $2, lease_until = now() + $4 * interval '1 millisecond'
        WHERE prefix = $1 AND dataset = $3 AND (owner = $2 OR owner IS NULL OR lease_until < now())
        RETURNING epoch`,
      [this.prefix, owner, dataset, leaseMs],
    );
    return rows[0] ? { epoch: Number(rows[0].epoch), dataset } : null;
  }

  /** Extends the lease of `epoch`; false when it is no longer this epoch's (taken over, cleared). */
  async renew(epoch: number, leaseMs: number): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE frontier_spill_owner SET lease_until = now() + $3 * interval '1 millisecond'
        WHERE prefix = $1 AND epoch = $2`,
      [this.prefix, epoch, leaseMs],
    );
    return r.rowCount === 1;
  }

  /**
   * Takes the spill for a pump that runs alone (tests, a one-shot crawl: no lease, no other
   * coordinator): a new epoch, the dataset kept (named `local` when there is none yet).
   */
  async takeAlone(): Promise<number> {
    const { rows } = await this.pool.query<{ epoch: string }>(
      `INSERT INTO frontier_spill_owner (prefix, epoch, owner, lease_until, dataset)
       VALUES ($1, 1, NULL, '-infinity', 'local')
       ON CONFLICT (prefix) DO UPDATE SET epoch = frontier_spill_owner.epoch + 1
       RETURNING epoch`,
      [this.prefix],
    );
    return Number(rows[0]!.epoch);
  }

  /** Gives the lease of `epoch` up (a pump that stops), so another coordinator takes it at once. */
  async give(epoch: number): Promise<void> {
    await this.pool.query(
      `UPDATE frontier_spill_owner SET owner = NULL, lease_until = '-infinity'
        WHERE prefix = $1 AND epoch = $2`,
      [this.prefix, epoch],
    );
  }

  /**
   * Names the Redis dataset the spill belongs to, raising the epoch (every pump's writes are
   * refused from here on; the next pump takes over under a new one). With `clear`, the rows and
   * batch records go in the same transaction: a frontier rebuilt after Redis was lost has none
   * of the counters (nor the spill sequence) that account for them, and the rebuild queues the
   * unfetched URLs again. Without, they are kept (the same Redis, first named: an upgrade).
   * Returns rows deleted.
   */
  async resetDataset(dataset: string, opts: { clear: boolean }): Promise<number> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO frontier_spill_owner (prefix, epoch, owner, lease_until, dataset)
         VALUES ($1, 1, NULL, '-infinity', $2)
         ON CONFLICT (prefix) DO UPDATE
           SET epoch = frontier_spill_owner.epoch + 1, owner = NULL, lease_until = '-infinity',
               dataset = EXCLUDED.dataset`,
        [this.prefix, dataset],
      );
      let deleted = 0;
      if (opts.clear) {
        await c.query(`DELETE FROM frontier_refill_batch WHERE prefix = $1`, [this.prefix]);
        const r = await c.query(
          `DELETE FROM frontier_spill WHERE host_id IN
             (SELECT id FROM frontier_spill_host WHERE prefix = $1)`,
          [this.prefix],
        );
        deleted = r.rowCount ?? 0;
      }
      await c.query('COMMIT');
      return deleted;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  /**
   * Runs one write of the pump of `epoch` in a transaction that holds the ownership row's share
   * lock: a takeover or a clear waits for it, and it is refused when the epoch moved on.
   */
  private async fenced<T>(
    epoch: number,
    what: string,
    write: (c: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const { rows } = await c.query<{ epoch: string }>(
        `SELECT epoch FROM frontier_spill_owner WHERE prefix = $1 FOR SHARE`,
        [this.prefix],
      );
      const current = rows[0] ? Number(rows[0].epoch) : null;
      if (current !== epoch)
        throw new SpillFencedError(
          `spill pump of epoch ${epoch} may not ${what}: the spill's epoch is ${current ?? 'unset'}`,
        );
      const out = await write(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }
}
