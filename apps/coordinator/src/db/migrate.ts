import { redactUrl } from '@crawler/adapters/log';
import { ConfigError } from '@crawler/domain/config';
import { CodedError, ServerUnavailableError } from '@crawler/domain/errors';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

const migrationsDir = new URL('../../../../prisma/migrations/', import.meta.url);

const START_POSTGRES =
  'Start it (e.g. `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`) or set DATABASE_URL.';

/** Raised when Postgres cannot be reached; says where and how to start it. */
export class PostgresUnavailableError extends ServerUnavailableError {
  readonly code = 'POSTGRES_UNAVAILABLE';
  constructor(url: string, cause: unknown) {
    super('Postgres', redactUrl(url), cause, START_POSTGRES);
  }
}

/** Stable codes of {@link MigrationError}. */
export type MigrationErrorCode =
  /** An applied migration's file changed since (migrations are never edited). */
  | 'MIGRATION_EDITED'
  /** A migration's SQL failed; it was rolled back (the error is the `cause`). */
  | 'MIGRATION_FAILED';

/** A migration run that stopped: running it again fails the same way until someone fixes it. */
export class MigrationError extends CodedError<MigrationErrorCode> {
  override readonly name = 'MigrationError';

  constructor(code: MigrationErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, {}, options);
  }
}

export interface AppliedMigration {
  name: string;
  applied: boolean;
}

/**
 * Applies prisma/migrations/<stamp>_<name>/migration.sql in order, each in its own transaction,
 * recording them in Prisma's own `_prisma_migrations` table (same columns and checksum), so a
 * later `prisma migrate deploy` sees them as applied. Creates the database when it is missing.
 * A migration whose file changed after it was applied stops the run (migrations are never edited).
 */
export async function migrate(databaseUrl: string): Promise<AppliedMigration[]> {
  await ensureDatabase(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (err) {
    throw new PostgresUnavailableError(databaseUrl, err);
  }
  try {
    // One runner at a time per database (start command and tests may race).
    await client.query('SELECT pg_advisory_lock(727274)');
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ, "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const done = new Map<string, string>();
    const rows = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    for (const r of rows.rows) done.set(r.migration_name, r.checksum);

    const result: AppliedMigration[] = [];
    for (const name of listMigrations()) {
      const sql = readFileSync(new URL(`${name}/migration.sql`, migrationsDir), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const known = done.get(name);
      if (known !== undefined) {
        if (known !== checksum)
          throw new MigrationError(
            'MIGRATION_EDITED',
            `migration ${name} was edited after it was applied (checksum differs)`,
          );
        result.push({ name, applied: false });
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new MigrationError(
          'MIGRATION_FAILED',
          `migration ${name} failed and was rolled back: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
      result.push({ name, applied: true });
    }
    return result;
  } finally {
    await client.end();
  }
}

/** Migration folder names in order (`<14-digit stamp>_<name>`). */
export function listMigrations(): string[] {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^\d{14}_/.test(d.name))
    .map((d) => d.name)
    .sort();
}

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const u = new URL(databaseUrl);
  const name = decodeURIComponent(u.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(name))
    throw new ConfigError([
      `DATABASE_URL names an unsupported database: ${name} (letters, digits and _ only)`,
    ]);
  u.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new PostgresUnavailableError(databaseUrl, err);
  }
  try {
    const r = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) {
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } catch (err) {
        // Another process created it in between: fine.
        // (42P04, or 23505 when both passed the catalog check at the same moment).
        const code = (err as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw err;
      }
    }
  } finally {
    await admin.end();
  }
}

/** Drops a database (tests clean up after themselves). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const u = new URL(databaseUrl);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
