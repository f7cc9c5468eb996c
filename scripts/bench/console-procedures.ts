/**
 * Where the console's first-data batches spend their time (issue 14):
 * `npx tsx scripts/bench/console-procedures.ts [--rows 1000000] [--runs 15]`.
 *
 * A real coordinator (its own Postgres database, Redis prefix and embedded ClickHouse) gets the
 * console bench's rows (scripts/bench/console-rows.ts, as console.ts: `rows` fetches over the last 24 h across
 * 5,000 hosts, 100k a batch). Then, `runs` times each after a warm-up:
 * - each procedure a page asks first (overview `stats.get`, `stats.series` 15m, `auth.me`;
 *   hosts `hosts.list` {q:'', limit:100}; agents `agents.list`, `shards.list`) through its
 *   service function, with every store it uses wrapped so each call of ClickHouse, Postgres and
 *   Redis is timed on its own (`parts`, median ms of each call);
 * - the JSON of each answer (`json_ms`), and each page's batch over HTTP (tRPC, with a session
 *   cookie, as the console's server sends it: `http_batch`);
 * - `stats.get (ingesting)`: one fetch row inserted before each call (not timed), as while a
 *   crawl runs, so the day's totals are read again every time;
 * - `before_after`: each query issue 14 replaced beside its replacement, in the same run (the
 *   machine is shared, so only figures taken together compare): the whole-table FINAL totals
 *   (AnalyticsStore.fetchStats) against readFetchTotals, the 15 min series from `fetches` against
 *   `fetch_timeline`, the host list's former query against searchHosts, and the agents' rates.
 * Prints one JSON object (medians and p95 in ms), also as the last stdout line.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@crawler/domain/config';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix } from '@crawler/adapters/redis';
import { Coordinator } from '../../apps/coordinator/src/coordinator';
import { dropDatabase } from '../../apps/coordinator/src/db/migrate';
import { statsDeps, type Services } from '../../apps/coordinator/src/api/services';
import { authenticate } from '../../apps/coordinator/src/auth/authenticate';
import { me } from '../../apps/coordinator/src/auth/login';
import { searchHosts } from '../../apps/coordinator/src/hosts/search-hosts';
import { readFetchTotals } from '../../apps/coordinator/src/stats/fetch-totals';
import { getStats } from '../../apps/coordinator/src/stats/get-stats';
import { statsSeries } from '../../apps/coordinator/src/stats/stats-series';
import { listAgents } from '../../apps/coordinator/src/agents/list-agents';
import { listShards } from '../../apps/coordinator/src/shards/list-shards';
import { fetchRows } from './console-rows';

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)] ?? 0;
const p95 = (xs: number[]) => sorted(xs)[Math.min(xs.length - 1, Math.ceil(0.95 * xs.length) - 1)];
const r1 = (x: number | undefined) => Math.round((x ?? 0) * 10) / 10;

/** Durations of each store call, by `label.method`, while `on`. */
class CallTimes {
  on = false;
  readonly calls = new Map<string, number[]>();

  /** `target` with each method returning a promise timed under `label.method`. */
  wrap<T extends object>(target: T, label: string): T {
    return new Proxy(target, {
      get: (obj, key, receiver) => {
        const value: unknown = Reflect.get(obj, key, receiver);
        if (typeof value !== 'function' || typeof key !== 'string') return value;
        return (...args: unknown[]) => {
          const t0 = performance.now();
          const out: unknown = (value as (...a: unknown[]) => unknown).apply(obj, args);
          if (!(out instanceof Promise)) return out;
          return out.finally(() => this.add(`${label}.${key}`, performance.now() - t0));
        };
      },
    });
  }

  add(name: string, ms: number): void {
    if (!this.on) return;
    const list = this.calls.get(name) ?? [];
    list.push(ms);
    this.calls.set(name, list);
  }

  /** Median ms of each call seen, then forgets them. */
  take(): Record<string, number> {
    const out = Object.fromEntries([...this.calls].map(([k, v]) => [k, r1(median(v))]));
    this.calls.clear();
    return out;
  }
}

/** Services whose ClickHouse, Postgres repositories, Redis and frontier calls are timed. */
function timedServices(s: Services, times: CallTimes): Services {
  const store = s.store;
  const pg = {
    policies: times.wrap(store.policies, 'pg.policies'),
    users: times.wrap(store.users, 'pg.users'),
    sessions: times.wrap(store.sessions, 'pg.sessions'),
    tokens: times.wrap(store.tokens, 'pg.tokens'),
    seeds: times.wrap(store.seeds, 'pg.seeds'),
    fleet: times.wrap(store.fleet, 'pg.fleet'),
  };
  return {
    ...s,
    analytics: times.wrap(s.analytics, 'ch'),
    frontier: times.wrap(s.frontier, 'frontier'),
    recrawl: times.wrap(s.recrawl, 'recrawl'),
    store: new Proxy(store, {
      get: (obj, key, receiver) =>
        typeof key === 'string' && key in pg
          ? pg[key as keyof typeof pg]
          : (Reflect.get(obj, key, receiver) as unknown),
    }),
  };
}

/**
 * Times `call` `runs` times after a warm-up: total and JSON ms (median, p95), and the median
 * of each store call it made.
 */
async function measure(
  times: CallTimes,
  runs: number,
  call: () => Promise<unknown>,
  prepare: (k: number) => Promise<void> = async () => {},
): Promise<Record<string, unknown>> {
  await prepare(-1);
  await call();
  const total: number[] = [];
  const json: number[] = [];
  for (let k = 0; k < runs; k++) {
    await prepare(k);
    times.on = true;
    const t0 = performance.now();
    const out = await call();
    total.push(performance.now() - t0);
    times.on = false;
    const t1 = performance.now();
    JSON.stringify(out);
    json.push(performance.now() - t1);
  }
  return {
    median_ms: r1(median(total)),
    p95_ms: r1(p95(total)),
    json_ms: r1(median(json)),
    parts: times.take(),
  };
}

// The queries issue 14 replaced, kept here to compare with their replacements in one run.
const FORMER_HOSTS_SQL = `
SELECT host, countIf(error_code != 'robots_denied') AS fetches,
       toUnixTimestamp64Milli(max(fetched_at)) AS last_ms,
       countIf(error_code != 'robots_denied' AND (status = 0 OR status >= 500)) AS errors
FROM fetches FINAL
WHERE host > {after:String} AND ({q:String} = '' OR positionCaseInsensitive(host, {q:String}) > 0)
GROUP BY host ORDER BY host LIMIT {take:UInt32}
SETTINGS do_not_merge_across_partitions_select_final = 1`;
const ratesSql = (table: string) => `
SELECT agent_id, count() AS n FROM ${table}
WHERE fetched_at > now64(3) - INTERVAL 60 SECOND AND error_code != 'robots_denied'
GROUP BY agent_id`;

/** Median ms of `runs` calls after a warm-up. */
async function medianMs(runs: number, call: () => Promise<unknown>): Promise<number> {
  await call();
  const ms: number[] = [];
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    await call();
    ms.push(performance.now() - t0);
  }
  return r1(median(ms));
}

/** Each replaced query and its replacement, in turn, on the same data. */
async function beforeAfter(s: Services, runs: number): Promise<Record<string, [number, number]>> {
  const a = s.analytics;
  const hosts = { after: '', q: '', take: 101 };
  const series = (source: 'fetches' | 'timeline') => () =>
    statsSeries(s, { window: '15m' }, Date.now(), source);
  return {
    fetch_totals_full_final_vs_per_day_unchanged: [
      await medianMs(runs, () => a.fetchStats()),
      await medianMs(runs, () => readFetchTotals(a)),
    ],
    series_15m_fetches_vs_timeline: [
      await medianMs(runs, series('fetches')),
      await medianMs(runs, series('timeline')),
    ],
    hosts_page_former_sql_vs_search_hosts: [
      await medianMs(runs, () => a.queryJson(FORMER_HOSTS_SQL, hosts)),
      await medianMs(runs, () =>
        searchHosts({ analytics: a, policies: s.store.policies }, { limit: 100 }),
      ),
    ],
    agent_rates_fetches_vs_timeline: [
      await medianMs(runs, () => a.queryJson(ratesSql('fetches'))),
      await medianMs(runs, () => a.queryJson(ratesSql('fetch_timeline'))),
    ],
  };
}

/** Each console page's first batch over HTTP (tRPC GET batch, session cookie). */
async function httpBatches(
  url: string,
  cookie: string,
  runs: number,
): Promise<Record<string, { median_ms: number; p95_ms: number }>> {
  const batches: Record<string, [string, unknown[]]> = {
    overview: ['stats.get,stats.series,auth.me', [undefined, { window: '15m' }, undefined]],
    hosts: ['hosts.list,auth.me', [{ q: '', limit: 100 }, undefined]],
    agents: ['agents.list,shards.list,auth.me', [{}, {}, undefined]],
  };
  const out: Record<string, { median_ms: number; p95_ms: number }> = {};
  for (const [page, [paths, inputs]] of Object.entries(batches)) {
    const input = Object.fromEntries(inputs.map((v, i) => [String(i), v ?? null]));
    const target = `${url}/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
    const ms: number[] = [];
    for (let k = 0; k < runs + 1; k++) {
      const t0 = performance.now();
      const res = await fetch(target, { headers: { cookie } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${page}: ${res.status} ${body.slice(0, 300)}`);
      if (k > 0) ms.push(performance.now() - t0);
    }
    out[page] = { median_ms: r1(median(ms)), p95_ms: r1(p95(ms)) };
  }
  return out;
}

/** Runs the measurement; the object is also printed when run as a script. */
export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      rows: { type: 'string', default: '1000000' },
      runs: { type: 'string', default: '15' },
    },
  });
  const rows = Number(values.rows);
  const runs = Number(values.runs);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-console-procs-'));
  const db = new URL(
    process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  );
  db.pathname = `/crawler_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = { email: 'admin@bench.local', password: randomBytes(12).toString('base64url') };
  const config = loadConfig({
    DATABASE_URL: db.toString(),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `bench-procs-${randomBytes(4).toString('hex')}`,
    DATA_DIR: dataDir,
    COORDINATOR_PORT: '0',
    LOG_LEVEL: 'warn',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    REDIS_VOLATILE_OK: 'true',
  });
  const coordinator = await Coordinator.start(config, createLogger('bench', 'warn'));
  try {
    const now = Date.now();
    const t0 = performance.now();
    for (let o = 0; o < rows; o += 100_000)
      await coordinator.services.analytics.insertFetches(
        fetchRows(Math.min(100_000, rows - o), o, now, rows),
      );
    const insertS = (performance.now() - t0) / 1000;
    const login = await fetch(`${coordinator.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-crawler-csrf': '1' },
      body: JSON.stringify(admin),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    if (login.status !== 200 || cookie === '') throw new Error(`login: ${login.status}`);

    const times = new CallTimes();
    const s = timedServices(coordinator.services, times);
    const headers = { cookie };
    const procedures: Record<string, () => Promise<unknown>> = {
      'auth.me': async () => me(s, (await authenticate(s.store, headers))!),
      'stats.get': () => getStats(statsDeps(s)),
      'stats.series(15m)': () => statsSeries(s, { window: '15m' }),
      'hosts.list': () =>
        searchHosts({ analytics: s.analytics, policies: s.store.policies }, { limit: 100 }),
      'agents.list': () => listAgents(s, {}),
      'shards.list': () => listShards(s, {}),
    };
    const load = [loadavg()[0]!];
    const out: Record<string, unknown> = {};
    for (const [name, call] of Object.entries(procedures))
      out[name] = await measure(times, runs, call);
    // While a crawl runs: a new row today before each call, so today's totals are read again.
    const one = fetchRows(1, rows, now, rows)[0]!;
    out['stats.get (ingesting)'] = await measure(times, runs, procedures['stats.get']!, (k) =>
      coordinator.services.analytics.insertFetches([
        { ...one, url_fp: `ff${String(k + 2).padStart(14, '0')}`, fetched_at: new Date() },
      ]),
    );
    const compared = await beforeAfter(coordinator.services, runs);
    load.push(loadavg()[0]!);
    const http = await httpBatches(coordinator.url, cookie, runs);
    load.push(loadavg()[0]!);
    return {
      bench: 'console-procedures',
      rows,
      runs,
      insert_rows_per_s: Math.round(rows / insertS),
      procedures: out,
      http_batch: http,
      before_after: compared,
      load_avg_1m: load.map(r1),
    };
  } finally {
    await coordinator.stop();
    const redis = await connectRedis(config.REDIS_URL);
    await deleteKeysWithPrefix(redis, config.REDIS_PREFIX);
    redis.disconnect();
    await dropDatabase(config.DATABASE_URL);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('console-procedures.ts')) {
  const result = await run(process.argv.slice(2));
  console.log(JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result));
  process.exit(0);
}
