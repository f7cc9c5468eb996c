import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

const migrationsDir = new URL('../../../../prisma/migrations/', import.meta.url);

/** The spill's tables as the migrations create them (the one source of their DDL), in order. */
function spillDdl(): string {
  const dirs = readdirSync(migrationsDir)
    .filter((d) => /_frontier_spill(_|$)/.test(d))
    .sort();
  if (dirs.length === 0) throw new Error('no *_frontier_spill migration in prisma/migrations');
  return dirs
    .map((d) => readFileSync(new URL(`${d}/migration.sql`, migrationsDir), 'utf8'))
    .join('\n');
}

/** A Postgres database of a test file's own holding the spill tables. */
export interface SpillTestDatabase {
  /** Its URL (for child processes). */
  readonly url: string;
  pool(): pg.Pool;
  open(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates (on `open`) a throw-away database with the frontier_spill tables, dropped on `close`:
 * TEST_DATABASE_URL's server (default the machine's Postgres), a unique name.
 */
export function spillTestDatabase(): SpillTestDatabase {
  const base = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `crawler_spill_${process.pid}_${randomBytes(3).toString('hex')}`;
  const u = new URL(base);
  u.pathname = `/${name}`;
  let pool: pg.Pool | undefined;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  return {
    url: u.toString(),
    pool: () => {
      if (!pool) throw new Error('spill database not open');
      return pool;
    },
    open: async () => {
      await admin(`CREATE DATABASE "${name}"`);
      pool = new pg.Pool({ connectionString: u.toString(), max: 8 });
      // An idle client's error (the database dropped under a closing client) is not a test's.
      pool.on('error', () => {});
      await pool.query(spillDdl());
    },
    close: async () => {
      if (!pool) return;
      await pool.end();
      pool = undefined;
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
