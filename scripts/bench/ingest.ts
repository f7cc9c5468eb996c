import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { openAnalytics, type AnalyticsStore, type FetchRow } from '@crawler/analytics';
import { loadConfig } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { telemetryStreamKey } from '@crawler/domain/messages';
import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import { benchEnv } from '@crawler/testing';
import { Coordinator } from '../../apps/coordinator/src/coordinator';
import { dropDatabase } from '../../apps/coordinator/src/db/migrate';
import { TelemetryIngest } from '../../apps/coordinator/src/telemetry/ingest-telemetry';
import { telemetryRow } from './ingest-rows';

/** Resolves each awaited word once the child prints it on a line of its own. */
function lineReader(child: ChildProcess): (word: string) => Promise<void> {
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  if (child.stdout)
    createInterface({ input: child.stdout }).on('line', (line) => {
      seen.add(line.trim());
      waiting.get(line.trim())?.();
    });
  return (word) =>
    new Promise((resolve, reject) => {
      if (seen.has(word)) return resolve();
      waiting.set(word, resolve);
      child.once('exit', (code) => reject(new Error(`producer exited (${code}) before "${word}"`)));
    });
}

/**
 * The store's batch insert alone: `rows` fetch rows go through insertFetches (zod validation,
 * JSONCompactEachRow encoding, one INSERT per batch with the views) into a database of their own
 * in the coordinator's chdb folder, two batches in flight. Each batch is built just before it is
 * inserted, and that is timed too (~1 µs a row): a million rows held in memory at once would
 * make the garbage collector, not the insert, the thing measured.
 */
async function storeInsert(path: string, rows: number, batchRows: number, hosts: number) {
  const store = await openAnalytics({ path, database: 'crawler_bench_store' });
  try {
    await store.migrate();
    const now = Date.now();
    const build = (from: number): FetchRow[] => {
      const batch: FetchRow[] = [];
      for (let k = from; k < Math.min(rows, from + batchRows); k++) {
        const row = telemetryRow(k, hosts, now);
        batch.push({ ...row, fetched_at: new Date(row.fetched_at) });
      }
      return batch;
    };
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const inFlight = new Set<Promise<void>>();
    for (let from = 0; from < rows; from += batchRows) {
      const done: Promise<void> = store
        .insertFetches(build(from))
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
      if (inFlight.size >= 2) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return {
      rowsPerS: Math.round(rows / seconds),
      cpuUsPerRow: Number(((cpu.user + cpu.system) / rows).toFixed(1)),
    };
  } finally {
    await store.close();
  }
}

/**
 * Starts the producer child for `key` and, once it has its rows ready, returns a function that
 * lets it go and times (wall and this process's CPU) until `settled()` resolves.
 */
function timedProduce(url: string, key: string, rows: number, perEntry: number, hosts: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/bench/ingest-producer.ts',
      url,
      key,
      String(rows),
      String(perEntry),
      String(hosts),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const said = lineReader(child);
  return async (settled: () => Promise<void>) => {
    await said('ready');
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    child.stdin?.write('go\n');
    await said('done');
    await settled();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    child.stdin?.end();
    return { seconds, cpuUs: cpu.user + cpu.system };
  };
}

/**
 * The telemetry ingest on its own (no re-crawl observer): a TelemetryIngest of its own, on a
 * stream of its own, into a database of its own in the coordinator's chdb folder.
 */
async function ingestAlone(
  path: string,
  redisUrl: string,
  produce: (
    key: string,
  ) => (settled: () => Promise<void>) => Promise<{ seconds: number; cpuUs: number }>,
) {
  const prefix = `bench-ingest-alone-${randomBytes(4).toString('hex')}`;
  const store = await openAnalytics({ path, database: 'crawler_bench_ingest' });
  const redis = await connectRedis(redisUrl);
  const ingest = new TelemetryIngest(redis, store, prefix, 'bench', createLogger('bench', 'warn'));
  try {
    await store.migrate();
    await ingest.start();
    return await produce(telemetryStreamKey(prefix))(() => ingest.settle(1_800_000));
  } finally {
    await ingest.stop();
    await store.close();
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  }
}

/** Waits (at most `maxMs`) until ClickHouse has no merge running: the steady state queries see. */
async function mergesDone(analytics: AnalyticsStore, maxMs: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < maxMs) {
    const [row] = await analytics.queryJson<{ n: string }>(
      'SELECT count() AS n FROM system.merges WHERE database = currentDatabase()',
    );
    if (Number(row?.n) === 0) break;
    await sleep(250);
  }
  return Number(((performance.now() - t0) / 1000).toFixed(1));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function latencies(n: number, call: (k: number) => Promise<number>) {
  for (let k = 0; k < 5; k++) await call(k); // warm-up
  const ms: number[] = [];
  const statuses = new Set<number>();
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    statuses.add(await call(k));
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    p50: round(percentile(ms, 50)),
    p99: round(percentile(ms, 99)),
    max: round(ms[ms.length - 1] ?? 0),
    statuses: [...statuses],
  };
}

/**
 * The ClickHouse ingest and the API over it, in a real Coordinator (its own Postgres database,
 * Redis prefix and embedded ClickHouse). `rows_per_s`: `rows` fetch rows through the store's
 * batch insert (validation, encoding, INSERT with the views that feed urls and captures).
 * `ingest_alone_rows_per_s`: as many again through the real ingest path (a child process appends
 * them to a telemetry stream as agents do; a TelemetryIngest reads, validates and inserts them).
 * `ingest_rows_per_s`: as many again through the coordinator's own telemetry ingest, which also
 * updates every URL's re-crawl schedule in Redis.
 * Then, merges done, GET /v1/stats and GET /v1/hosts/{host} are timed with those rows present.
 */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      rows: { type: 'string', default: '1000000' },
      'rows-per-entry': { type: 'string', default: '500' },
      hosts: { type: 'string', default: '5000' },
      requests: { type: 'string', default: '300' },
    },
  });
  const rows = Number(values.rows);
  const perEntry = Number(values['rows-per-entry']);
  const hosts = Number(values.hosts);
  const requests = Number(values.requests);

  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  const token = `crw_${randomBytes(24).toString('base64url')}`;
  const config = loadConfig({
    ...benchEnv('ingest', dataDir),
    COORDINATOR_PORT: '0',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN: token,
  });
  const coordinator = await Coordinator.start(config, createLogger('bench', 'warn'));
  const redis = await connectRedis(config.REDIS_URL);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  try {
    console.error(`store path: ${rows} rows through insertFetches`);
    const store = await storeInsert(join(dataDir, 'clickhouse'), rows, 100_000, hosts);

    // The agents' side: a child process appends the rows to a telemetry stream, as agents do.
    const produce = (key: string) => timedProduce(config.REDIS_URL, key, rows, perEntry, hosts);

    console.error(`telemetry ingest alone: ${rows} rows`);
    const alone = await ingestAlone(join(dataDir, 'clickhouse'), config.REDIS_URL, produce);

    console.error(`coordinator: ${rows} rows through its telemetry ingest`);
    const real = await produce(telemetryStreamKey(config.REDIS_PREFIX))(() =>
      coordinator.ingest.settle(1_800_000),
    );
    const stats = await coordinator.services.analytics.fetchStats();
    const [views] = await coordinator.services.analytics.queryJson<Record<string, string>>(
      `SELECT (SELECT count() FROM urls FINAL) AS urls, (SELECT count() FROM captures FINAL) AS captures`,
    );

    const mergeWaitS = await mergesDone(coordinator.services.analytics, 120_000);
    console.error('timing the API');
    const api = coordinator.url;
    const policyHosts = Array.from({ length: 20 }, (_, k) => `host${k * 7}.example.com`);
    for (const h of policyHosts) {
      const res = await fetch(`${api}/v1/hosts/${h}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ rate_limit_rps: 2 }),
      });
      await res.arrayBuffer();
    }
    const get = async (path: string) => {
      const res = await fetch(`${api}${path}`, { headers });
      await res.arrayBuffer();
      return res.status;
    };
    const statsMs = await latencies(requests, () => get('/v1/stats'));
    const hostMs = await latencies(requests, (k) =>
      get(`/v1/hosts/${policyHosts[k % policyHosts.length]}`),
    );

    return {
      bench: 'ingest',
      rows,
      rows_per_s: store.rowsPerS,
      rows_path: 'AnalyticsStore.insertFetches batches of 100k, 2 in flight (embedded chdb, views)',
      store_cpu_us_per_row: store.cpuUsPerRow,
      ingest_alone_rows_per_s: Math.round(rows / alone.seconds),
      ingest_alone_cpu_us_per_row: Number((alone.cpuUs / rows).toFixed(1)),
      ingest_rows_per_s: Math.round(rows / real.seconds),
      ingest_cpu_us_per_row: Number((real.cpuUs / rows).toFixed(1)),
      ingest_path:
        'agents XADD -> telemetry stream -> TelemetryIngest (validate, insertFetches) [-> the ' +
        "coordinator's re-crawl observer, in ingest_rows_per_s only]",
      rows_ingested: stats.total + stats.robotsDenied,
      urls: Number(views?.urls),
      captures: Number(views?.captures),
      merge_wait_s: mergeWaitS,
      api_p99_ms: Math.max(statsMs.p99, hostMs.p99),
      stats_ms: statsMs,
      host_ms: hostMs,
    };
  } finally {
    await coordinator.stop();
    await deleteKeysWithPrefix(redis, config.REDIS_PREFIX);
    redis.disconnect();
    await dropDatabase(config.DATABASE_URL);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
