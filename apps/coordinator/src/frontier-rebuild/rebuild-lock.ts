import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '@crawler/adapters/log';

/** How long a rebuild's lease lives unless renewed (ms): a coordinator that died frees it then. */
const LEASE_MS = 60_000;
/** How often a running rebuild renews its lease (ms). */
const RENEW_MS = LEASE_MS / 6;

/** The rebuild recorded as running (frontier_rebuild_run). */
export interface RebuildRun {
  id: string;
  owner: string;
  reason: string;
  startedAt: string;
}

/**
 * The one frontier rebuild of an installation, across coordinators: a row of
 * `frontier_rebuild_run` (its id, owner, reason and start) held by a lease the rebuild renews
 * while it runs and deletes when it ends. A coordinator that dies mid-rebuild (SIGKILL) frees it
 * when the lease lapses (60 s), or at once when it starts again under the same id (one process
 * per coordinator id: the run it finds is its dead predecessor's); its rebuild ran in part, and
 * the next one (idempotent) does it all. Within a process, rebuildFrontier refuses a second.
 */
export class RebuildLock {
  private timer: NodeJS.Timeout | null = null;
  private lost = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly prefix: string,
    readonly run: RebuildRun,
  ) {}

  /**
   * Takes the lock for a rebuild, or returns the run that holds it (`held`) — another
   * coordinator's, or this one's.
   */
  static async take(
    databaseUrl: string,
    prefix: string,
    owner: string,
    reason: string,
    log: Logger,
  ): Promise<{ lock: RebuildLock } | { held: RebuildRun }> {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    pool.on('error', (err) => log.warn({ err }, 'frontier rebuild lock: Postgres client failed'));
    try {
      const id = randomUUID();
      const { rows } = await pool.query<{ id: string; started_at: Date }>(
        `INSERT INTO frontier_rebuild_run (prefix, id, owner, reason, started_at, lease_until)
         VALUES ($1, $2, $3, $4, now(), now() + $5 * interval '1 millisecond')
         ON CONFLICT (prefix) DO UPDATE
           SET id = EXCLUDED.id, owner = EXCLUDED.owner, reason = EXCLUDED.reason,
               started_at = EXCLUDED.started_at, lease_until = EXCLUDED.lease_until
           WHERE frontier_rebuild_run.lease_until < now() OR frontier_rebuild_run.owner = EXCLUDED.owner
         RETURNING id, started_at`,
        [prefix, id, owner, reason, LEASE_MS],
      );
      if (!rows[0]) {
        const held = await running(pool, prefix);
        await pool.end();
        // Freed between the two statements: report it as held; the caller may try again.
        return { held: held ?? { id: 'unknown', owner: 'unknown', reason, startedAt: '' } };
      }
      const lock = new RebuildLock(pool, prefix, {
        id,
        owner,
        reason,
        startedAt: rows[0].started_at.toISOString(),
      });
      lock.timer = setInterval(() => void lock.renew(log), RENEW_MS).unref();
      return { lock };
    } catch (err) {
      await pool.end();
      throw err;
    }
  }

  /** The rebuild recorded as running with a live lease, or null. */
  static async running(databaseUrl: string, prefix: string): Promise<RebuildRun | null> {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      return await running(pool, prefix);
    } finally {
      await pool.end();
    }
  }

  /** False once a renewal found the lease gone (lapsed and taken by another rebuild). */
  get held(): boolean {
    return !this.lost;
  }

  private async renew(log: Logger): Promise<void> {
    try {
      const r = await this.pool.query(
        `UPDATE frontier_rebuild_run SET lease_until = now() + $3 * interval '1 millisecond'
          WHERE prefix = $1 AND id = $2`,
        [this.prefix, this.run.id, LEASE_MS],
      );
      if (r.rowCount !== 1) this.lost = true;
    } catch (err) {
      log.warn({ err }, 'frontier rebuild lock: renewal failed; trying again');
    }
  }

  /** Ends the run: deletes its row (only its own) and closes the pool. */
  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    try {
      await this.pool.query(`DELETE FROM frontier_rebuild_run WHERE prefix = $1 AND id = $2`, [
        this.prefix,
        this.run.id,
      ]);
    } finally {
      await this.pool.end();
    }
  }
}

async function running(pool: pg.Pool, prefix: string): Promise<RebuildRun | null> {
  const { rows } = await pool.query<{
    id: string;
    owner: string;
    reason: string;
    started_at: Date;
  }>(
    `SELECT id, owner, reason, started_at FROM frontier_rebuild_run
      WHERE prefix = $1 AND lease_until >= now()`,
    [prefix],
  );
  const r = rows[0];
  return r
    ? { id: r.id, owner: r.owner, reason: r.reason, startedAt: r.started_at.toISOString() }
    : null;
}
