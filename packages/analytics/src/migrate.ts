import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AnalyticsError } from './analytics-errors';
import type { ClickHouseBackend } from './clickhouse-backend';

/** Folder of the numbered migrations `NNN_name.sql`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

const FILE_NAME = /^(\d{3})_([a-z0-9_]+)\.sql$/;
/** Version 1 creates the ledger itself, so it runs every time (its DDL is idempotent). */
const LEDGER_VERSION = 1;

/** One migration file, split into statements. */
export interface Migration {
  version: number;
  name: string;
  /** sha256 hex of the file, recorded so an edited migration is noticed. */
  checksum: string;
  statements: string[];
}

/** Statements of a file: split on `;` at a line end; comment-only pieces are dropped. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;[ \t]*\r?\n/)
    .map((s) => s.replace(/;\s*$/, '').trim())
    .filter((s) =>
      s.split('\n').some((line) => line.trim() !== '' && !line.trim().startsWith('--')),
    );
}

/** Reads the migrations of a folder, in version order. */
export async function loadMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const migrations: Migration[] = [];
  for (const file of (await readdir(dir)).sort()) {
    const match = FILE_NAME.exec(file);
    if (!match?.[1] || !match[2]) continue;
    const sql = await readFile(`${dir}/${file}`, 'utf8');
    migrations.push({
      version: Number(match[1]),
      name: match[2],
      checksum: createHash('sha256').update(sql).digest('hex'),
      statements: splitStatements(sql),
    });
  }
  return migrations;
}

/**
 * Applies, in order, the migrations not yet in `schema_migrations`, recording each after it
 * ran. Returns the names applied (empty when up to date).
 * @throws AnalyticsError `ANALYTICS_MIGRATION_CHANGED` when an applied file has changed since.
 */
export async function applyMigrations(
  db: ClickHouseBackend,
  migrations: readonly Migration[],
): Promise<string[]> {
  const ledger = migrations.find((m) => m.version === LEDGER_VERSION);
  for (const statement of ledger?.statements ?? []) await db.exec(statement);

  const applied = new Map(
    (
      await db.queryRows<{ version: number; checksum: string }>(
        'SELECT version, checksum FROM schema_migrations FINAL',
        {},
      )
    ).map((r) => [Number(r.version), r.checksum]),
  );

  const done: string[] = [];
  for (const migration of migrations) {
    const label = `${String(migration.version).padStart(3, '0')}_${migration.name}`;
    const checksum = applied.get(migration.version);
    if (checksum !== undefined) {
      if (checksum !== migration.checksum) {
        throw new AnalyticsError(
          'ANALYTICS_MIGRATION_CHANGED',
          `migration ${label} changed after it was applied; add a new migration instead`,
        );
      }
      continue;
    }
    if (migration.version !== LEDGER_VERSION) {
      for (const statement of migration.statements) await db.exec(statement);
    }
    const row = { version: migration.version, name: migration.name, checksum: migration.checksum };
    await db.insertJsonEachRow('schema_migrations', Buffer.from(`${JSON.stringify(row)}\n`));
    done.push(label);
  }
  return done;
}
