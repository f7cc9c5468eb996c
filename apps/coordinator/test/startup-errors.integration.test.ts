import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ConfigError, loadConfig, type Config } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, RedisUnavailableError } from '@crawler/adapters/redis';
import { uniquePrefix } from '@crawler/testing';
import { Coordinator } from '../src/coordinator';
import { dropDatabase, listMigrations, migrate, PostgresUnavailableError } from '../src/db/migrate';
import { makeTestEnv } from './test-env';

// Start-up against missing or wrong services fails fast with a message that says where and how
// to fix it; the migration runner is idempotent; schema.prisma and the SQL migrations agree.
const log = createLogger('startup-errors', 'silent');
const PG_DOWN = 'postgresql://postgres@127.0.0.1:1/x';
const REDIS_DOWN = 'redis://127.0.0.1:1';
const REAL_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PG_BASE = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** A TCP server that accepts connections and never says a word (a hung or wrong service). */
let silent: Server;
const silentSockets = new Set<Socket>();
const tmpDirs: string[] = [];

beforeAll(async () => {
  silent = createServer((s) => {
    silentSockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => silentSockets.delete(s));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const s of silentSockets) s.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

function silentPort(): number {
  return (silent.address() as AddressInfo).port;
}

/** A config for Coordinator.start whose services can be swapped for broken ones. */
function configWith(overrides: Record<string, string>): Config {
  const dataDir = mkdtempSync(join(tmpdir(), 'crawler-startup-'));
  tmpDirs.push(dataDir);
  return loadConfig({
    DATABASE_URL: PG_DOWN,
    REDIS_URL: REAL_REDIS,
    REDIS_PREFIX: uniquePrefix('startup'),
    DATA_DIR: dataDir,
    COORDINATOR_PORT: '0',
    LOG_LEVEL: 'silent',
    ...overrides,
  });
}

/** The error a promise rejects with, or a failure when it is still pending after `ms`. */
async function rejection(p: Promise<unknown>, ms: number): Promise<{ err: Error; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    p.then(
      (value) => ({ kind: 'resolved' as const, value }),
      (err: unknown) => ({ kind: 'rejected' as const, err }),
    ),
    new Promise<{ kind: 'pending' }>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'pending' }), ms);
    }),
  ]);
  clearTimeout(timer);
  if (outcome.kind === 'pending') throw new Error(`still pending after ${ms} ms`);
  if (outcome.kind === 'resolved') throw new Error('expected a rejection, but it succeeded');
  expect(outcome.err).toBeInstanceOf(Error);
  return { err: outcome.err as Error, ms: performance.now() - started };
}

function freshDatabaseUrl(): string {
  const u = new URL(PG_BASE);
  u.pathname = `/crawler_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  return u.toString();
}

describe.concurrent('unreachable Postgres', () => {
  it('Coordinator.start rejects at once, naming the URL and how to start Postgres', async () => {
    const { err, ms } = await rejection(Coordinator.start(configWith({}), log), 5000);
    expect(err).toBeInstanceOf(PostgresUnavailableError);
    expect((err as PostgresUnavailableError).code).toBe('POSTGRES_UNAVAILABLE');
    expect(err.message).toContain(PG_DOWN);
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.message).toMatch(/Start it \(e\.g\. `pg_ctlcluster .* start`\)/);
    expect(err.message).toContain('DATABASE_URL');
    expect(ms).toBeLessThan(5000);
  });

  it('migrate hides the password of the URL it names', async () => {
    const { err } = await rejection(migrate('postgresql://postgres:s3cret@127.0.0.1:1/x'), 5000);
    expect(err).toBeInstanceOf(PostgresUnavailableError);
    expect(err.message).toContain('postgresql://postgres:***@127.0.0.1:1/x');
    expect(err.message).not.toContain('s3cret');
  });

  it('a server that accepts but never answers fails within the connect timeout', async () => {
    const url = `postgresql://postgres@127.0.0.1:${silentPort()}/x`;
    const { err, ms } = await rejection(migrate(url), 8000);
    expect(err).toBeInstanceOf(PostgresUnavailableError);
    expect(err.message).toContain(url);
    expect(ms).toBeLessThan(6000);
  });
});

describe.concurrent('unreachable Redis', () => {
  it('connectRedis rejects at once, naming the URL and how to start Redis', async () => {
    const { err, ms } = await rejection(connectRedis(REDIS_DOWN), 5000);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as RedisUnavailableError).code).toBe('REDIS_UNAVAILABLE');
    expect(err.message).toContain(`at ${REDIS_DOWN} `);
    expect(err.message).toMatch(/Start it \(e\.g\. `redis-server .*`\)/);
    expect(err.message).toContain('REDIS_URL');
    expect(ms).toBeLessThan(5000);
  });

  it('connectRedis hides the password of the URL it names', async () => {
    const { err } = await rejection(connectRedis('redis://:s3cret@127.0.0.1:1'), 5000);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect(err.message).toContain('redis://:***@127.0.0.1:1');
    expect(err.message).not.toContain('s3cret');
  });

  it('Coordinator.start with Postgres up and Redis down rejects naming Redis', async () => {
    const env = makeTestEnv({ REDIS_URL: REDIS_DOWN, LOG_LEVEL: 'silent' });
    try {
      const { err, ms } = await rejection(Coordinator.start(env.config, log), 8000);
      expect(err).toBeInstanceOf(RedisUnavailableError);
      expect(err.message).toContain(REDIS_DOWN);
      expect(err.message).toContain('REDIS_URL');
      expect(ms).toBeLessThan(6000);
    } finally {
      await env.cleanup();
    }
  });

  it('a server that accepts but never answers fails within a few seconds', async () => {
    const url = `redis://127.0.0.1:${silentPort()}`;
    const pending = connectRedis(url);
    // If it ever connects, do not leak the client.
    pending.then((c) => c.disconnect()).catch(() => undefined);
    const { err, ms } = await rejection(pending, 6000);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect(err.message).toContain(url);
    expect(ms).toBeLessThan(6000);
  });
});

describe('loadConfig names each bad variable', () => {
  // packages/domain/src/config/config.test.ts covers FRONTIER_SHARDS, a CIDR without a prefix
  // length and REDIS_URL; these are the variables start-up depends on besides those.
  it('lists every bad variable at once, each with its value', () => {
    const bad: Record<string, string> = {
      DATABASE_URL: 'postgres at localhost',
      COORDINATOR_PORT: '70000',
      REDIS_CLUSTER: 'maybe',
      REDIS_PREFIX: 'crawl:{x}',
      LOG_LEVEL: 'loud',
      CRAWLER_UA_TOKEN: 'my bot',
      FETCH_MAX_BODY_BYTES: '10MB',
      LEASE_MS: '10',
    };
    let caught: unknown;
    try {
      loadConfig(bad);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const err = caught as ConfigError;
    expect(err.code).toBe('CONFIG_INVALID');
    for (const [name, value] of Object.entries(bad)) {
      // One line per variable: `NAME="value": reason`, with a reason.
      const head = `${name}=${JSON.stringify(value)}: `;
      const line = err.problems.find((p) => p.startsWith(`${name}=`));
      expect(line, name).toBeDefined();
      expect(line!.startsWith(head), line).toBe(true);
      expect(line!.length, line).toBeGreaterThan(head.length + 3);
      expect(err.message).toContain(`  - ${head}`);
    }
    expect(err.problems).toHaveLength(Object.keys(bad).length);
  });

  it('treats empty strings as unset (the documented default applies)', () => {
    const c = loadConfig({ DATABASE_URL: '', COORDINATOR_PORT: '', LOG_LEVEL: '' });
    expect(c.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/crawler');
    expect(c.COORDINATOR_PORT).toBe(4000);
    expect(c.LOG_LEVEL).toBe('info');
  });

  it.each(['10.0.0.0/33', '300.1.1.1/8', '::1/200'])(
    'rejects the impossible CIDR %s in CRAWLER_NETWORK_ALLOW (instead of crashing the agent later)',
    (cidr) => {
      expect(() => loadConfig({ CRAWLER_NETWORK_ALLOW: `127.0.0.0/8,${cidr}` })).toThrow(
        /CRAWLER_NETWORK_ALLOW/,
      );
    },
  );
});

describe('the migration runner', () => {
  const url = freshDatabaseUrl();
  let db: pg.Client;

  beforeAll(async () => {
    await migrate(url);
    db = new pg.Client({ connectionString: url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await dropDatabase(url);
  });

  async function catalog(): Promise<string[]> {
    const r = await db.query<{ c: string }>(
      `SELECT table_name || '.' || column_name || ':' || data_type || ':' || is_nullable AS c
         FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1`,
    );
    return r.rows.map((x) => x.c);
  }
  async function history(): Promise<string[]> {
    const r = await db.query<{ h: string }>(
      `SELECT id || ' ' || migration_name || ' ' || checksum AS h FROM "_prisma_migrations" ORDER BY 1`,
    );
    return r.rows.map((x) => x.h);
  }

  it('recorded every migration once, in Prisma’s table', async () => {
    const names = listMigrations();
    expect(names.length).toBeGreaterThan(0);
    const r = await db.query<{ migration_name: string; applied_steps_count: number }>(
      `SELECT migration_name, applied_steps_count FROM "_prisma_migrations"
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
    );
    expect(r.rows.map((x) => x.migration_name)).toEqual(names);
    expect(r.rows.every((x) => x.applied_steps_count === 1)).toBe(true);
  });

  it('applied a second time is a no-op', async () => {
    const [catalogBefore, historyBefore] = [await catalog(), await history()];
    const again = await migrate(url);
    expect(again).toEqual(listMigrations().map((name) => ({ name, applied: false })));
    expect(await catalog()).toEqual(catalogBefore);
    expect(await history()).toEqual(historyBefore);
  });

  it('stops when an applied migration was edited', async () => {
    const name = listMigrations()[0]!;
    const original = (
      await db.query<{ checksum: string }>(
        `SELECT checksum FROM "_prisma_migrations" WHERE migration_name = $1`,
        [name],
      )
    ).rows[0]!.checksum;
    await db.query(`UPDATE "_prisma_migrations" SET checksum = $1 WHERE migration_name = $2`, [
      '0'.repeat(64),
      name,
    ]);
    try {
      await expect(migrate(url)).rejects.toThrow(
        `migration ${name} was edited after it was applied`,
      );
    } finally {
      await db.query(`UPDATE "_prisma_migrations" SET checksum = $1 WHERE migration_name = $2`, [
        original,
        name,
      ]);
    }
  });

  it('runners racing on a database that does not exist yet all succeed', async () => {
    const raceUrl = freshDatabaseUrl();
    try {
      const results = await Promise.allSettled([
        migrate(raceUrl),
        migrate(raceUrl),
        migrate(raceUrl),
      ]);
      const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      expect(failures).toEqual([]);
      const appliedBy = results.flatMap((r) =>
        r.status === 'fulfilled' ? r.value.filter((m) => m.applied).map((m) => m.name) : [],
      );
      // Each migration ran exactly once over all runners.
      expect(appliedBy.sort()).toEqual(listMigrations());
    } finally {
      await dropDatabase(raceUrl);
    }
  });
});

describe('schema.prisma and the SQL migrations agree', () => {
  interface ModelField {
    field: string;
    column: string;
    type: string;
    optional: boolean;
    nativeType: string | null;
    id: boolean;
    unique: boolean;
  }
  interface Model {
    name: string;
    table: string;
    fields: ModelField[];
    /** `@@index([a, b])`: field names. */
    indexes: string[][];
    /** `@relation(fields: [x], references: [y], onDelete: …)`. */
    relations: Array<{ field: string; model: string; references: string; onDelete: string }>;
  }

  /** Reads models from schema.prisma: table and column names (@@map/@map), types, nullability. */
  function parseModels(text: string): Model[] {
    const models: Model[] = [];
    const names = [...text.matchAll(/^model\s+(\w+)\s*\{/gm)].map((m) => m[1]!);
    for (const m of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
      const name = m[1]!;
      let table = name;
      const fields: ModelField[] = [];
      const indexes: string[][] = [];
      const relations: Model['relations'] = [];
      for (const raw of m[2]!.split('\n')) {
        const line = raw.replace(/\/\/.*$/, '').trim();
        if (line === '') continue;
        const map = /^@@map\("([^"]+)"\)/.exec(line);
        if (map) table = map[1]!;
        const index = /^@@index\(\[([^\]]+)\]/.exec(line);
        if (index) indexes.push(index[1]!.split(',').map((x) => x.trim()));
        if (line.startsWith('@@')) continue;
        const f = /^(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/.exec(line);
        if (!f) throw new Error(`cannot read field line of model ${name}: ${line}`);
        const [, field, type, list, optional, attrs] = f as unknown as [
          string,
          string,
          string,
          string | undefined,
          string | undefined,
          string,
        ];
        const rel =
          /@relation\((?:"\w+", )?fields: \[(\w+)\], references: \[(\w+)\](?:, onDelete: (\w+))?/.exec(
            attrs,
          );
        if (rel)
          relations.push({
            field: rel[1]!,
            model: type,
            references: rel[2]!,
            onDelete: rel[3] ?? 'Restrict',
          });
        if (list || names.includes(type)) continue; // relation fields have no column
        fields.push({
          field,
          column: /@map\("([^"]+)"\)/.exec(attrs)?.[1] ?? field,
          type,
          optional: optional === '?',
          nativeType: /@db\.(\w+)/.exec(attrs)?.[1] ?? null,
          id: /@id\b/.test(attrs),
          unique: /@unique\b/.test(attrs),
        });
      }
      models.push({ name, table, fields, indexes, relations });
    }
    return models;
  }

  /** The Postgres data_type each Prisma type (or @db. native type) is stored as. */
  const nativeTypes: Record<string, string> = {
    Text: 'text',
    Char: 'character',
    VarChar: 'character varying',
    SmallInt: 'smallint',
    Integer: 'integer',
    BigInt: 'bigint',
    Real: 'real',
    DoublePrecision: 'double precision',
    Decimal: 'numeric',
    Boolean: 'boolean',
    Timestamptz: 'timestamp with time zone',
    Timestamp: 'timestamp without time zone',
    Date: 'date',
    Uuid: 'uuid',
    JsonB: 'jsonb',
    Json: 'json',
    ByteA: 'bytea',
  };
  const defaultTypes: Record<string, string> = {
    String: 'text',
    Int: 'integer',
    BigInt: 'bigint',
    Float: 'double precision',
    Decimal: 'numeric',
    Boolean: 'boolean',
    DateTime: 'timestamp without time zone',
    Json: 'jsonb',
    Bytes: 'bytea',
  };
  /** Native types each Prisma scalar may use. */
  const allowedNative: Record<string, string[]> = {
    String: ['Text', 'Char', 'VarChar', 'Uuid'],
    Int: ['Integer', 'SmallInt'],
    BigInt: ['BigInt'],
    Float: ['DoublePrecision', 'Real'],
    Decimal: ['Decimal'],
    Boolean: ['Boolean'],
    DateTime: ['Timestamptz', 'Timestamp', 'Date'],
    Json: ['Json', 'JsonB'],
    Bytes: ['ByteA'],
  };

  const url = freshDatabaseUrl();
  let db: pg.Client;
  const models = parseModels(
    readFileSync(new URL('../../../prisma/schema.prisma', import.meta.url), 'utf8'),
  );

  beforeAll(async () => {
    await migrate(url);
    db = new pg.Client({ connectionString: url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await dropDatabase(url);
  });

  interface Column {
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: 'YES' | 'NO';
  }
  async function columns(table: string): Promise<Column[]> {
    const r = await db.query<Column>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    return r.rows;
  }

  it('reads every model from schema.prisma', () => {
    expect(models.map((m) => m.table).sort()).toEqual([
      'agents',
      'api_tokens',
      'audit_log',
      'crawl_settings',
      'frontier_rebuild_run',
      'frontier_refill_batch',
      'frontier_spill',
      'frontier_spill_host',
      'frontier_spill_owner',
      'host_block_patterns',
      'host_policies',
      'seed_list_members',
      'seed_lists',
      'seeds',
      'sessions',
      'shard_map',
      'users',
    ]);
    for (const m of models) expect(m.fields.length, m.name).toBeGreaterThan(2);
  });

  it('has exactly the tables of the models (besides Prisma’s migration table)', async () => {
    const r = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY 1`,
    );
    expect(r.rows.map((x) => x.table_name)).toEqual(models.map((m) => m.table).sort());
  });

  it('every model field has a column of a compatible type and nullability, and no extra columns', async () => {
    for (const model of models) {
      const live = await columns(model.table);
      expect(live.length, `table ${model.table} exists`).toBeGreaterThan(0);
      const expected = model.fields.map((f) => {
        if (f.nativeType) {
          expect(
            allowedNative[f.type] ?? [],
            `${model.name}.${f.field} @db.${f.nativeType}`,
          ).toContain(f.nativeType);
        }
        const dataType = f.nativeType ? nativeTypes[f.nativeType] : defaultTypes[f.type];
        expect(dataType, `${model.name}.${f.field}: ${f.type}`).toBeDefined();
        return `${f.column}: ${dataType} ${f.optional ? 'NULL' : 'NOT NULL'}`;
      });
      const actual = live.map(
        (c) => `${c.column_name}: ${c.data_type} ${c.is_nullable === 'YES' ? 'NULL' : 'NOT NULL'}`,
      );
      expect(actual.sort(), model.table).toEqual(expected.sort());
    }
  });

  it('indexes match @@index, and foreign keys match @relation', async () => {
    const columnOf = (m: Model, field: string) =>
      m.fields.find((f) => f.field === field)?.column ?? `?${field}`;
    const onDelete: Record<string, string> = {
      a: 'NoAction',
      r: 'Restrict',
      c: 'Cascade',
      n: 'SetNull',
      d: 'SetDefault',
    };
    for (const model of models) {
      const idx = await db.query<{ cols: string }>(
        `SELECT string_agg(a.attname, ',' ORDER BY k.ord) AS cols
           FROM pg_index x
           JOIN pg_class t ON t.oid = x.indrelid
           CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
          WHERE t.relname = $1 AND NOT x.indisunique
          GROUP BY x.indexrelid ORDER BY 1`,
        [model.table],
      );
      const expectedIdx = model.indexes.map((cols) =>
        cols.map((f) => columnOf(model, f)).join(','),
      );
      expect(
        idx.rows.map((r) => r.cols),
        `${model.table} indexes`,
      ).toEqual(expectedIdx.sort());

      const fks = await db.query<{ fk: string }>(
        `SELECT a.attname || ' -> ' || ft.relname || '.' || fa.attname || ' ' || c.confdeltype::text AS fk
           FROM pg_constraint c
           JOIN pg_class t ON t.oid = c.conrelid
           JOIN pg_class ft ON ft.oid = c.confrelid
           JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
           JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
          WHERE c.contype = 'f' AND t.relname = $1 ORDER BY 1`,
        [model.table],
      );
      const expectedFks = model.relations.map((r) => {
        const target = models.find((m) => m.name === r.model)!;
        return `${columnOf(model, r.field)} -> ${target.table}.${columnOf(target, r.references)} ${r.onDelete}`;
      });
      expect(
        fks.rows.map((r) => r.fk.replace(/ (\w)$/, (_m, c: string) => ` ${onDelete[c] ?? c}`)),
        `${model.table} foreign keys`,
      ).toEqual(expectedFks.sort());
    }
  });

  it('primary keys and unique fields match @id and @unique', async () => {
    for (const model of models) {
      const r = await db.query<{ column_name: string; constraint: string }>(
        `SELECT a.attname AS column_name, CASE WHEN i.indisprimary THEN 'id' ELSE 'unique' END AS constraint
           FROM pg_index i
           JOIN pg_class t ON t.oid = i.indrelid
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(i.indkey)
          WHERE t.relname = $1 AND i.indisunique AND i.indnatts = 1
          ORDER BY 1, 2`,
        [model.table],
      );
      const actual = r.rows.map((x) => `${x.column_name}:${x.constraint}`);
      const expected = model.fields
        .flatMap((f) => [
          ...(f.id ? [`${f.column}:id`] : []),
          ...(f.unique ? [`${f.column}:unique`] : []),
        ])
        .sort();
      expect(actual, model.table).toEqual(expected);
    }
  });
});
