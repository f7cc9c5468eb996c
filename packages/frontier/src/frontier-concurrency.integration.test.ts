import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomInt } from 'node:crypto';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { uniquePrefix, seededRandom } from '@crawler/testing';
import { Frontier, type FrontierOptions } from './frontier';
import { DISCOVERED_HOST_CLASS, HOST_CLASSES } from './priority';
import {
  backgroundSpillPump,
  HOST_LISTS,
  spilledEntries,
  TEST_HEAD_MAX,
} from './testing/frontier-test-kit';
import { spillTestDatabase } from './testing/spill-test-db';
import type { EnqueueUrl, HostLease } from './types';

/**
 * A randomized concurrency test of the frontier (BRIEF: the Frontier contract, core invariants 1
 * and 3). A dozen simulated agents, each with its own connection, lease hosts from 8 shards with
 * short leases and work each lease in a randomly chosen way: normal, partial, failing (sometimes
 * with a Retry-After), stalling past the deadline, crashing, extending. Link discovery and a
 * seeder add new URLs, duplicates and re-crawls while they run. Every simulated fetch and every
 * lease is logged (one clock: Date.now(), which reads the same clock as Redis TIME here); the
 * queues are snapshotted atomically during the run; at the end the logs and the frontier's state
 * are checked. Problems are collected by kind and reported together.
 *
 * Only the random choices are seeded: FRONTIER_CONCURRENCY_SEED=<uint32> replays them (`random`
 * draws a new seed). The interleaving of the agents still depends on timing. Single Redis only:
 * a snapshot reads all shards in one MULTI. Heads are bounded to the test kit's TEST_HEAD_MAX
 * with a spill pump running in the background, as the coordinator's: the URLs spilled at the end
 * count as queued.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SEED = parseSeed(process.env.FRONTIER_CONCURRENCY_SEED);

const OPTS = {
  shards: 8,
  leaseMs: 400,
  maxUrlsPerLease: 10,
  defaultGapMs: 30,
  maxAttempts: 3,
  backoffBaseMs: 40,
  backoffMaxMs: 300,
  seen: { mode: 'bloom', expectedUrls: 1_000_000 },
  headMax: TEST_HEAD_MAX,
} satisfies Omit<FrontierOptions, 'prefix'>;
const HOSTS = 100;
/** Hosts from this index on share an address by threes; the others have their own. */
const SHARED_IP_FROM = 55;
const INITIAL_URLS = 2000;
/** URLs added while the agents run (link discovery and the seeder). */
const NEW_URL_BUDGET = 700;
const RECRAWL_TRIES = 200;
const AGENTS = 12;
const LOOPS_PER_AGENT = 3;
const FEED_MS = 3000;
const HARD_STOP_MS = 15_000;
/** An agent starts no fetch that could end later than this before its lease deadline. */
const SAFETY_MS = 50;
/** Clock tolerance: Redis TIME and Date.now() read the same clock, both floored to ms. */
const TOL_MS = 2;

type Behaviour = 'normal' | 'partial' | 'failing' | 'stalling' | 'crashing' | 'extending';
const BEHAVIOURS: ReadonlyArray<[Behaviour, number]> = [
  ['normal', 0.5],
  ['partial', 0.12],
  ['failing', 0.13],
  ['stalling', 0.08],
  ['crashing', 0.07],
  ['extending', 0.1],
];

interface UrlInfo {
  url: string;
  fp: string;
  host: string;
  /** Fails on every fetch: dead-lettered after maxAttempts. */
  flaky: boolean;
}

/** What the test knows of one url_fp. */
interface FpState {
  /** Accepted by enqueue: 1 (discovery) + re-crawls accepted. */
  accepted: number;
  completed: number;
  /** Dead-lettered, as fail() reported. */
  dead: number;
  /** complete/fail calls in flight that may end a copy of it; `epoch` counts those started. */
  ending: number;
  epoch: number;
  /** What happened to it (leases, ends, re-crawls), for the messages of problems. */
  history: string[];
}

interface FetchLog {
  agent: string;
  host: string;
  leaseId: string;
  start: number;
  end: number;
  /** The agent's (conservative) deadline when the fetch started. */
  deadline: number;
}

interface LeaseLog {
  agent: string;
  host: string;
  shard: number;
  ip: string | null;
  leaseId: string;
  behaviour: Behaviour;
  gapMs: number;
  requestedAt: number;
  receivedAt: number;
  /** requestedAt + leaseMs (or the last extension's call time + leaseMs): ≤ the real deadline. */
  deadline: number;
  /** ok: completed or failed while current; stale: refused; crashed: abandoned. */
  end: 'open' | 'ok' | 'stale' | 'crashed';
  /** Local time just before the accepted complete/fail call, the delay it set, URLs done. */
  callAt?: number;
  delayMs?: number;
  processed?: number;
  failed?: { retryAfterMs: number };
}

interface Run {
  hosts: string[];
  ipOf: Map<string, string>;
  urls: UrlInfo[];
  byFp: Map<string, UrlInfo>;
  byUrl: Map<string, UrlInfo>;
  fps: Map<string, FpState>;
  newBudget: number;
  discoveryAccepted: number;
  completedFps: string[];
  recrawledFps: string[];
  fetches: FetchLog[];
  leases: LeaseLog[];
  /** What went wrong, by kind. */
  problems: Map<string, string[]>;
  /** Timing slips of the simulation itself (a loaded machine), reported but not failed. */
  warnings: string[];
  snapshots: number;
  stopped: boolean;
}

interface Agent {
  id: string;
  frontier: Frontier;
  rng: () => number;
}

describe('Frontier under concurrent agents (randomized)', () => {
  const clients: RedisClient[] = [];
  const prefix = uniquePrefix('frontier-conc');
  const db = TEST_HEAD_MAX > 0 ? spillTestDatabase() : null;

  beforeAll(async () => {
    await db?.open();
  });
  afterAll(async () => {
    await db?.close();
    if (clients[0]) await deleteKeysWithPrefix(clients[0], prefix);
    for (const c of clients) c.disconnect();
  });

  it('keeps politeness, uniqueness and every URL while leases stall, crash and fail', async () => {
    console.log(`frontier concurrency seed ${SEED} (FRONTIER_CONCURRENCY_SEED=${SEED} replays it)`);
    const connect = async (): Promise<RedisClient> => {
      const c = await connectRedis(REDIS_URL);
      clients.push(c);
      return c;
    };
    const monitorRedis = await connect();
    const monitor = new Frontier(monitorRedis, { prefix, ...OPTS });
    const rng = seededRandom(SEED);
    const run = makeRun();
    // The coordinator's spiller/refiller, on a connection of its own, from the first enqueue on.
    const pump = db && backgroundSpillPump(new Frontier(await connect(), { prefix, ...OPTS }), db);

    // Host policies (most hosts get a gap of 20–50 ms), then the initial URLs.
    for (const host of run.hosts)
      if (rng() < 0.6)
        await monitor.setHostPolicy(host, { gapMs: 20 + randInt(rng, 31), blocked: false });
    const initial = Array.from({ length: INITIAL_URLS }, () => newUrl(run, rng));
    for (let i = 0; i < initial.length; i += 250) {
      const { accepted } = await monitor.enqueue(
        initial.slice(i, i + 250).map((u) => toEnqueue(u, rng)),
      );
      run.discoveryAccepted += accepted;
    }

    const agents: Agent[] = [];
    for (let i = 0; i < AGENTS; i++)
      agents.push({
        id: `agent-${i}`,
        frontier: new Frontier(await connect(), { prefix, ...OPTS }),
        rng: seededRandom((SEED ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0),
      });
    const seeder = new Frontier(await connect(), { prefix, ...OPTS });

    const t0 = Date.now();
    const loops = agents.flatMap((a) =>
      Array.from({ length: LOOPS_PER_AGENT }, () => agentLoop(run, a)),
    );
    const snapshots = (async () => {
      while (!run.stopped) {
        await sleep(500);
        await checkSnapshot(run, monitorRedis, monitor, 'during the run');
      }
    })();
    await feed(run, seeder, seededRandom((SEED + 0x6d2b79f5) >>> 0));
    let idle = false;
    while (!idle && Date.now() - t0 < HARD_STOP_MS) {
      idle = await monitor.isIdle(); // stats() also reclaims expired leases
      if (!idle) await sleep(100);
    }
    const idleAfter = Date.now() - t0;
    run.stopped = true;
    await Promise.all([...loops, snapshots]);
    // Stopped at the hard cap: let abandoned leases expire (stats() reclaims them).
    for (let i = 0; i < 20 && (await monitor.stats()).openLeases > 0; i++) await sleep(100);
    await pump?.stop();
    for (const err of pump?.errors ?? [])
      problem(run, 'spill pump failed', err instanceof Error ? err.message : JSON.stringify(err));

    const queued = await checkSnapshot(run, monitorRedis, monitor, 'at the end');
    if (db) countSpilled(run, queued, await spilledEntries(monitor, db));
    const stats = await monitor.stats();
    const dead = await monitor.deadLetters(1_000_000);
    if (idle && queued.size > 0)
      problem(run, 'idle with URLs queued', `isIdle() was true with ${queued.size} URLs queued`);
    checkAccounting(run, queued, dead, stats);
    checkHostPoliteness(run);
    checkIpPoliteness(run);
    checkBackoff(run);

    const count = (e: LeaseLog['end']): number => run.leases.filter((l) => l.end === e).length;
    const fps = [...run.fps.values()];
    console.log(
      `seed ${SEED}: ${idle ? 'idle' : 'NOT idle (hard stop)'} after ${idleAfter} ms; ` +
        `${run.urls.length} URLs on ${HOSTS} hosts, ${run.leases.length} leases (${count('ok')} ok, ` +
        `${count('stale')} stale, ${count('crashed')} crashed), ${run.fetches.length} fetches, ` +
        `${sum(fps.map((s) => s.completed))} completed, ${dead.length} dead letters, ` +
        `${sum(fps.map((s) => s.accepted - 1))} re-crawls, ${queued.size} still queued, ` +
        `${pump?.totals.spilled ?? 0} spilled to Postgres and ${pump?.totals.refilled ?? 0} refilled, ` +
        `${run.snapshots} snapshots, ${run.warnings.length} fetches overran their lease ` +
        `(event loop lag${run.warnings.length ? `, e.g. ${run.warnings.slice(0, 3).join('; ')}` : ''})`,
    );
    const report = Object.fromEntries(
      [...run.problems].map(([kind, msgs]) => [
        kind,
        { count: msgs.length, first: msgs.slice(0, 3) },
      ]),
    );
    expect(report, `seed ${SEED}: problems found`).toEqual({});
    expect(run.fetches.length).toBeGreaterThan(INITIAL_URLS);
    // The bounded heads were exercised: URLs went to Postgres and came back.
    if (pump) expect(pump.totals.refilled).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------
// The simulated web, link discovery and the seeder

function makeRun(): Run {
  const hosts = Array.from({ length: HOSTS }, (_, i) => `h${i}.conc.test`);
  return {
    hosts,
    ipOf: new Map(
      hosts.map((h, i) => [h, i >= SHARED_IP_FROM ? `10.0.0.${i % 15}` : `10.1.0.${i}`]),
    ),
    urls: [],
    byFp: new Map(),
    byUrl: new Map(),
    fps: new Map(),
    newBudget: NEW_URL_BUDGET,
    discoveryAccepted: 0,
    completedFps: [],
    recrawledFps: [],
    fetches: [],
    leases: [],
    problems: new Map(),
    warnings: [],
    snapshots: 0,
    stopped: false,
  };
}

/** A new URL on a host drawn with a skew (low-numbered hosts get more URLs). */
function newUrl(run: Run, rng: () => number): UrlInfo {
  const host = run.hosts[Math.floor(rng() ** 1.3 * HOSTS)]!;
  const url = `http://${host}/p/${run.urls.length}`;
  const fp = createHash('sha256').update(url).digest('hex').slice(0, 16);
  const info: UrlInfo = { url, fp, host, flaky: rng() < 0.03 };
  run.urls.push(info);
  run.byFp.set(fp, info);
  run.byUrl.set(url, info);
  run.fps.set(fp, { accepted: 1, completed: 0, dead: 0, ending: 0, epoch: 0, history: [] });
  return info;
}

function toEnqueue(u: UrlInfo, rng: () => number, recrawl = false): EnqueueUrl {
  return {
    url: u.url,
    urlFp: u.fp,
    host: u.host,
    depth: 1,
    priority: randInt(rng, 4),
    source: recrawl ? 'recrawl' : rng() < 0.5 ? 'seed' : 'link',
  };
}

/** Links found on a page: known URLs (duplicates) and, while the budget lasts, new ones. */
async function discover(run: Run, f: Frontier, rng: () => number): Promise<void> {
  const batch = Array.from({ length: 1 + randInt(rng, 3) }, () => {
    if (rng() < 0.5 || run.newBudget <= 0) return run.urls[randInt(rng, run.urls.length)]!;
    run.newBudget--;
    return newUrl(run, rng);
  });
  // Not `x += await …`: that reads x before the await and loses concurrent updates.
  const { accepted } = await f.enqueue(batch.map((u) => toEnqueue(u, rng)));
  run.discoveryAccepted += accepted;
}

/**
 * The seeder: duplicates, new URLs, policy changes, and re-crawls of completed URLs (half of them
 * of URLs re-crawled before, which must be refused while their re-crawl still waits).
 */
async function feed(run: Run, f: Frontier, rng: () => number): Promise<void> {
  const until = Date.now() + FEED_MS;
  let tries = 0;
  while (Date.now() < until) {
    await sleep(40);
    await discover(run, f, rng);
    await discover(run, f, rng);
    for (let i = 0; i < 3 && tries < RECRAWL_TRIES && run.completedFps.length > 0; i++, tries++) {
      const from = rng() < 0.5 && run.recrawledFps.length > 0 ? run.recrawledFps : run.completedFps;
      await recrawl(run, f, run.byFp.get(from[randInt(rng, from.length)]!)!, rng);
    }
    if (rng() < 0.1) {
      const host = run.hosts[randInt(rng, HOSTS)]!;
      await f.setHostPolicy(host, { gapMs: 20 + randInt(rng, 31), blocked: false });
    }
  }
}

/**
 * Enqueues a re-crawl. It must be accepted exactly when no copy of the url_fp is in the frontier;
 * judged only when no complete/fail that could end a copy ran meanwhile.
 */
async function recrawl(run: Run, f: Frontier, u: UrlInfo, rng: () => number): Promise<void> {
  const s = run.fps.get(u.fp)!;
  const before = { open: s.accepted - s.completed - s.dead, epoch: s.epoch, ending: s.ending };
  const { accepted } = await f.enqueue([toEnqueue(u, rng, true)]);
  note(run, u.fp, `re-crawl enqueued: accepted ${accepted}, ${before.open} open before`);
  const settled = before.ending === 0 && s.ending === 0 && before.epoch === s.epoch;
  if (settled && before.open > 0 && accepted === 1)
    problem(run, 're-crawl accepted while queued', `${u.url} (${u.fp}): ${history(run, u.fp)}`);
  if (settled && before.open === 0 && accepted === 0)
    problem(run, 're-crawl refused while not queued', `${u.url} (${u.fp}): ${history(run, u.fp)}`);
  if (accepted === 1) {
    s.accepted++;
    run.recrawledFps.push(u.fp);
  }
}

// ---------------------------------------------------------------------------------------------
// The simulated agents

async function agentLoop(run: Run, a: Agent): Promise<void> {
  while (!run.stopped) {
    // Now and then more hosts than there are shards: lease() hands the extra ones back.
    const want = a.rng() < 0.08 ? 10 : 1 + randInt(a.rng, 3);
    const requestedAt = Date.now();
    const leases = await a.frontier.lease(a.id, want);
    const receivedAt = Date.now();
    if (leases.length === 0) {
      await sleep(10 + randInt(a.rng, 15));
      continue;
    }
    const rngs = leases.map(() => seededRandom(randInt(a.rng, 2 ** 32)));
    await Promise.all(
      leases.map((l, i) => workLease(run, a, l, requestedAt, receivedAt, rngs[i]!)),
    );
  }
}

async function workLease(
  run: Run,
  a: Agent,
  lease: HostLease,
  requestedAt: number,
  receivedAt: number,
  rng: () => number,
): Promise<void> {
  const f = a.frontier;
  const n = lease.urls.length;
  const behaviour = pickBehaviour(rng);
  const rec: LeaseLog = {
    agent: a.id,
    host: lease.host,
    shard: lease.shard,
    ip: lease.ip,
    leaseId: lease.leaseId,
    behaviour,
    gapMs: lease.gapMs,
    requestedAt,
    receivedAt,
    deadline: requestedAt + lease.leaseMs,
    end: 'open',
  };
  run.leases.push(rec);
  lease.urls.forEach((u, i) =>
    note(run, u.urlFp, `${lease.leaseId} #${i} (${u.tier}, ${behaviour}, ${u.attempts} attempts)`),
  );
  const partial = behaviour === 'partial' || behaviour === 'stalling' || behaviour === 'crashing';
  const target = partial ? randInt(rng, n) : n;
  const failAt = behaviour === 'failing' ? randInt(rng, n) : -1;
  let nextAt = receivedAt;
  let lastEnd = receivedAt;
  let lastFetchMs = 0;
  let done = 0;
  let error: string | null = null;
  let extensions = 0;

  for (let i = 0; i < target; i++) {
    const fetchMs = behaviour === 'extending' ? 25 + randInt(rng, 35) : 2 + randInt(rng, 10);
    if (behaviour === 'extending' && extensions < 2 && Date.now() > rec.deadline - 200) {
      extensions++;
      const at = Date.now();
      const ok = await f.extend(lease, lease.leaseMs);
      if (ok) rec.deadline = at + lease.leaseMs;
      else if (Date.now() < rec.deadline)
        problem(run, 'live lease refused', `extend of ${lease.leaseId} (${lease.host})`);
    }
    // Like the real agent: no request that could outlast the lease.
    if (Math.max(Date.now(), nextAt) + fetchMs + SAFETY_MS > rec.deadline) break;
    await sleep(nextAt - Date.now());
    const start = Date.now();
    if (start + fetchMs + SAFETY_MS > rec.deadline) break;
    await sleep(fetchMs);
    const end = Date.now();
    run.fetches.push({
      agent: a.id,
      host: lease.host,
      leaseId: lease.leaseId,
      start,
      end,
      deadline: rec.deadline,
    });
    lastEnd = end;
    lastFetchMs = fetchMs;
    nextAt = end + lease.gapMs;
    if (run.byFp.get(lease.urls[i]!.urlFp)?.flaky || i === failAt) {
      error = ['5xx', 'timeout', '429'][randInt(rng, 3)]!;
      break;
    }
    done++;
    if (rng() < 0.25) await discover(run, f, rng);
  }

  const ip = run.ipOf.get(lease.host) ?? null;
  if (behaviour === 'crashing') {
    rec.end = 'crashed'; // never ends it: the lease must expire and its URLs return
    return;
  }
  if (behaviour === 'stalling') {
    // Past the real deadline (≤ receivedAt + leaseMs); make sure expired leases are reclaimed,
    // as any agent's lease() or a stats() call would do; then the late end must change nothing.
    await sleep(receivedAt + lease.leaseMs + 20 + randInt(rng, 100) - Date.now());
    await (rng() < 0.5 ? f.stats() : f.reclaimExpired());
    rec.end = 'stale';
    const accepted =
      rng() < 0.5
        ? await f.complete(lease, { processed: done, delayMs: 0, paceMs: lease.gapMs, ip })
        : (await f.fail(lease, { index: done, error: 'timeout', ip })) !== null;
    if (accepted) problem(run, 'stale lease accepted', `${rec.leaseId} (${rec.host})`);
    return;
  }

  // The URLs this call may end: the processed prefix, and the failed one.
  const touched = lease.urls.slice(0, error === null ? done : done + 1).map((u) => u.urlFp);
  for (const fp of touched) {
    const s = run.fps.get(fp)!;
    s.ending++;
    s.epoch++;
  }
  const callAt = Date.now();
  let ok: boolean;
  let deadFp: string | null = null;
  if (error !== null) {
    const retryAfterMs = rng() < 0.4 ? 50 + randInt(rng, 200) : 0;
    const r = await f.fail(lease, { index: done, error, retryAfterMs, ip });
    ok = r !== null;
    if (r) {
      rec.delayMs = r.delayMs;
      rec.failed = { retryAfterMs };
      if (r.deadLettered) deadFp = lease.urls[done]!.urlFp;
    }
  } else {
    const pick = rng();
    const delayMs =
      pick < 0.7
        ? Math.max(0, lastEnd + lease.gapMs - Date.now()) // the real agent's remaining gap
        : pick < 0.9
          ? lease.gapMs
          : 10 * lastFetchMs; // a slow host: 10 × fetch time
    ok = await f.complete(lease, { processed: done, delayMs, paceMs: lease.gapMs, ip });
    rec.delayMs = delayMs;
  }
  const returnedAt = Date.now();
  if (ok) {
    rec.end = 'ok';
    rec.callAt = callAt;
    rec.processed = done;
    for (const u of lease.urls.slice(0, done)) {
      const s = run.fps.get(u.urlFp)!;
      if (++s.completed === 1) run.completedFps.push(u.urlFp);
    }
    if (deadFp) run.fps.get(deadFp)!.dead++;
  } else {
    rec.end = 'stale';
    // The script ran before the reply, so before the local deadline ≤ the real one.
    if (returnedAt < rec.deadline)
      problem(run, 'live lease refused', `${error ? 'fail' : 'complete'} of ${rec.leaseId}`);
  }
  for (const fp of touched) run.fps.get(fp)!.ending--;
  note(
    run,
    lease.urls.map((u) => u.urlFp),
    `${lease.leaseId} ended ${rec.end}: ${done} done, error ${error ?? '-'}`,
  );
}

function pickBehaviour(rng: () => number): Behaviour {
  let x = rng();
  for (const [b, p] of BEHAVIOURS) if ((x -= p) < 0) return b;
  return 'normal';
}

// ---------------------------------------------------------------------------------------------
// Checks

/**
 * Reads every host's tier lists (q0..q9, qr), leased list (lq), counter `n`, lease, legacy ready
 * score and ready class sets in one MULTI (atomic), checks them and returns how often each
 * url_fp is in them.
 */
async function checkSnapshot(
  run: Run,
  redis: RedisClient,
  f: Frontier,
  when: string,
): Promise<Map<string, number>> {
  const k = f.keys;
  const lists = HOST_LISTS;
  const queues = lists.length - 1;
  const m = redis.multi();
  for (let s = 0; s < f.shards; s++) m.hget(k.stats(s), 'queued');
  for (const host of run.hosts) {
    const s = f.shardOf(host);
    m.hmget(k.host(s, host), 'n', 'lease', 'prio');
    m.zscore(k.ready(s), host);
    for (let c = 0; c < HOST_CLASSES; c++) m.zscore(k.readyClass(s, c), host);
    for (const l of lists) m.lrange(`${k.shard(s)}${l}:${host}`, 0, -1);
  }
  const values = ((await m.exec()) ?? []).map(([err, v]) => {
    if (err) throw err;
    return v;
  });
  run.snapshots++;
  const say = (kind: string, msg: string): void => problem(run, kind, `${when}: ${msg}`);
  const where = new Map<string, string>();
  const queuedPerShard = new Array<number>(f.shards).fill(0);
  let i = f.shards;
  for (const host of run.hosts) {
    const [nRaw, lease, prio] = strings(values[i++]);
    const legacy = values[i++];
    const inClasses = Array.from({ length: HOST_CLASSES }, () => values[i++]);
    const entries = lists.map(() => strings(values[i++]).filter((e): e is string => e !== null));
    const n = Number(nRaw ?? 0);
    queuedPerShard[f.shardOf(host)]! += n;
    const queued = sum(entries.slice(0, queues).map((l) => l.length));
    const leased = entries[queues]!.length;
    // Ready in the set of its class only; the legacy ready set stays empty (no script writes it).
    const hostClass = prio == null ? DISCOVERED_HOST_CLASS : Number(prio);
    const classes = inClasses.flatMap((v, c) => (v == null ? [] : [c]));
    const score = inClasses.find((v) => v != null) ?? null;
    if (classes.length > 1 || (classes.length === 1 && classes[0] !== hostClass))
      say('ready class sets', `${host}: class ${hostClass}, in ready:${classes.join()}`);
    if (legacy != null) say('ready class sets', `${host}: in the legacy ready set`);
    if (n !== queued) say('queue counters', `${host}: n=${n} but ${queued} entries queued`);
    if ((lease != null) !== leased > 0)
      say('lease state', `${host}: lease ${lease ?? 'none'} with ${leased} leased entries`);
    if (lease != null && score != null) say('lease state', `${host}: leased and ready`);
    if (lease == null && n > 0 && score == null)
      say('stranded host', `${host}: ${n} URLs queued, no lease, not in the ready set`);
    entries.forEach((list, li) => {
      for (const e of list) {
        // Queued: fp|attempts|…; leased: tier|fp|attempts|…
        const fp = e.split('|')[lists[li] === 'lq' ? 1 : 0] ?? '';
        const here = `${lists[li]}:${host}`;
        const before = where.get(fp);
        if (before !== undefined)
          say('url_fp queued twice', `${fp} in ${before} and ${here}: ${history(run, fp)}`);
        where.set(fp, before === undefined ? here : `${before}+${here}`);
      }
    });
  }
  for (let s = 0; s < f.shards; s++) {
    const stat = Number(strings(values[s])[0] ?? 0);
    if (stat !== queuedPerShard[s])
      say('queue counters', `shard ${s}: stats queued ${stat} ≠ Σ n ${queuedPerShard[s]}`);
  }
  return new Map([...where].map(([fp, w]) => [fp, w.split('+').length]));
}

/** Adds the spilled entries (at the end, the pump stopped) to the queued url_fps, once each. */
function countSpilled(run: Run, queued: Map<string, number>, spilled: readonly string[]): void {
  for (const e of spilled) {
    const fp = e.split('|')[0] ?? '';
    if (queued.has(fp))
      problem(run, 'url_fp queued twice', `${fp} queued and spilled: ${history(run, fp)}`);
    queued.set(fp, (queued.get(fp) ?? 0) + 1);
  }
}

/**
 * Every acceptance of a url_fp (discovery once, each re-crawl) ends in exactly one place:
 * completed by a current lease, dead-lettered, or still queued. None lost, none twice.
 */
function checkAccounting(
  run: Run,
  queued: ReadonlyMap<string, number>,
  deadLetters: ReadonlyArray<{ url: string }>,
  stats: { processedUrls: number; deadLetters: number },
): void {
  const dead = new Map<string, number>();
  for (const d of deadLetters) {
    const fp = run.byUrl.get(d.url)?.fp;
    if (fp) dead.set(fp, (dead.get(fp) ?? 0) + 1);
    else problem(run, 'unknown URLs', `dead letter ${d.url}`);
  }
  for (const fp of queued.keys())
    if (!run.byFp.has(fp)) problem(run, 'unknown URLs', `url_fp ${fp} queued`);
  for (const u of run.urls) {
    const s = run.fps.get(u.fp)!;
    const d = dead.get(u.fp) ?? 0;
    const q = queued.get(u.fp) ?? 0;
    const ends = s.completed + d + q;
    if (ends !== s.accepted)
      problem(
        run,
        ends < s.accepted ? 'URL lost' : 'URL duplicated',
        `${u.url}: accepted ${s.accepted}, completed ${s.completed}, dead ${d}, queued ${q}: ${history(run, u.fp)}`,
      );
    if (d !== s.dead) problem(run, 'dead letters', `${u.url}: ${d} listed, fail() said ${s.dead}`);
  }
  const fps = [...run.fps.values()];
  if (run.discoveryAccepted !== run.urls.length)
    problem(run, 'seen set', `${run.discoveryAccepted} accepted of ${run.urls.length} new URLs`);
  if (stats.processedUrls !== sum(fps.map((s) => s.completed)))
    problem(run, 'stats counters', `processedUrls ${stats.processedUrls}`);
  if (stats.deadLetters !== deadLetters.length)
    problem(run, 'stats counters', `deadLetters ${stats.deadLetters} ≠ ${deadLetters.length}`);
}

/**
 * When a lease let go of its host: its complete/fail call plus the delay it set (the script's
 * clock reads later than the call), or its deadline when it was abandoned or refused.
 */
function releaseOf(l: LeaseLog): number {
  if (l.end === 'ok') return l.callAt! + l.delayMs!;
  return l.end === 'open' ? Infinity : l.deadline;
}

/**
 * Per host: a lease is never received before the previous one's release (so two leases overlap
 * only after the first expired); fetches never overlap, never start before the release of the
 * previous fetch's lease, stay inside their lease and keep the host's gap within a lease.
 */
function checkHostPoliteness(run: Run): void {
  for (const [host, leases] of groupBy(run.leases, (l) => l.host)) {
    leases.sort((x, y) => x.receivedAt - y.receivedAt);
    for (let i = 1; i < leases.length; i++) {
      const [prev, cur] = [leases[i - 1]!, leases[i]!];
      const early = releaseOf(prev) - cur.receivedAt;
      if (early > TOL_MS)
        problem(
          run,
          'host leased too early',
          `${host}: ${cur.leaseId} received ${early} ms before ${prev.leaseId} (${prev.end}, ${prev.behaviour}) let go`,
        );
    }
  }
  const leaseOf = new Map(run.leases.map((l) => [l.leaseId, l]));
  for (const [host, fetches] of groupBy(run.fetches, (x) => x.host)) {
    fetches.sort((x, y) => x.start - y.start);
    fetches.forEach((cur, i) => {
      const lease = leaseOf.get(cur.leaseId)!;
      // The agent starts no fetch after its deadline (less SAFETY_MS): it checks first.
      if (cur.start < lease.receivedAt || cur.start > cur.deadline - SAFETY_MS)
        problem(run, 'fetch outside its lease', `${host}: ${cur.leaseId}`);
      if (cur.end > cur.deadline)
        run.warnings.push(`${host}: ${cur.leaseId} fetch ended ${cur.end - cur.deadline} ms late`);
      const prev = fetches[i - 1];
      // A simulated fetch that overran its lease (event loop lag) says nothing of the frontier.
      if (!prev || prev.end > prev.deadline) return;
      if (cur.start < prev.end)
        problem(run, 'host fetched twice at once', `${host}: ${prev.leaseId} and ${cur.leaseId}`);
      else if (prev.leaseId !== cur.leaseId) {
        const early = releaseOf(leaseOf.get(prev.leaseId)!) - cur.start;
        if (early > TOL_MS)
          problem(
            run,
            'host fetched too early',
            `${host}: ${cur.leaseId} fetched ${early} ms before ${prev.leaseId} let go`,
          );
      } else if (cur.start - prev.end < lease.gapMs - TOL_MS)
        problem(
          run,
          'gap within a lease',
          `${host}: ${cur.start - prev.end} ms < ${lease.gapMs} ms`,
        );
    });
  }
}

/**
 * When a lease let go of its IP: at its complete/fail call (no pause between leases on an IP is
 * configured), or at its deadline: the IP is free then, even if no one has reclaimed the lease.
 */
function ipReleaseOf(l: LeaseLog): number {
  return l.end === 'ok' ? Math.min(l.callAt!, l.deadline) : releaseOf(l);
}

/**
 * Per IP (invariant 1, shared hosting): two leases granted while the frontier knew their hosts'
 * shared IP (`HostLease.ip`, remembered from an earlier complete/fail) are never live at once.
 */
function checkIpPoliteness(run: Run): void {
  const known = run.leases.filter((l) => l.ip !== null);
  for (const [ip, leases] of groupBy(known, (l) => l.ip ?? '')) {
    leases.sort((x, y) => x.receivedAt - y.receivedAt);
    leases.forEach((cur, i) => {
      const live = leases
        .slice(0, i)
        .find((p) => p.host !== cur.host && ipReleaseOf(p) - cur.receivedAt > TOL_MS);
      if (live)
        problem(
          run,
          live.shard === cur.shard
            ? 'IP leased twice (same shard)'
            : 'IP leased twice (across shards)',
          `${ip}: ${cur.host} (shard ${cur.shard}, ${cur.leaseId}) received ` +
            `${ipReleaseOf(live) - cur.receivedAt} ms before ` +
            `${live.host} (shard ${live.shard}, ${live.leaseId}, ${live.behaviour}, ${live.end}) let go`,
        );
    });
  }
}

/**
 * A host's failures in a row back off base × 2^(errors-1) (capped), or Retry-After if longer.
 * Only a lease that completed URLs clears the count: a crash, a refused end, a lease handed back
 * or completed with nothing done is no success.
 */
function checkBackoff(run: Run): void {
  const ended = run.leases.filter((l) => l.end === 'ok');
  for (const [host, leases] of groupBy(ended, (l) => l.host)) {
    leases.sort((x, y) => x.callAt! - y.callAt!);
    let errors = 0;
    for (const l of leases) {
      if (!l.failed) {
        if (l.processed! > 0) errors = 0;
        continue;
      }
      errors++;
      const backoff = Math.min(OPTS.backoffMaxMs, OPTS.backoffBaseMs * 2 ** (errors - 1));
      const want = Math.max(l.failed.retryAfterMs, backoff);
      if (l.delayMs !== want)
        problem(
          run,
          'backoff',
          `${host}: failure ${errors} in a row (${l.leaseId}) waits ${l.delayMs ?? '-'} ms, not ${want} ms`,
        );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function problem(run: Run, kind: string, msg: string): void {
  const list = run.problems.get(kind);
  if (list) list.push(msg);
  else run.problems.set(kind, [msg]);
}

/** Remembers what happened to url_fps, for the messages of problems. */
function note(run: Run, fps: string | readonly string[], what: string): void {
  for (const fp of typeof fps === 'string' ? [fps] : fps) run.fps.get(fp)?.history.push(what);
}

function history(run: Run, fp: string): string {
  return (run.fps.get(fp)?.history ?? []).join('; ');
}

function strings(v: unknown): Array<string | null> {
  if (v == null) return [];
  const list: unknown[] = Array.isArray(v) ? v : [v];
  return list.map((x) => (x == null ? null : typeof x === 'string' ? x : JSON.stringify(x)));
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const list = out.get(key(t));
    if (list) list.push(t);
    else out.set(key(t), [t]);
  }
  return out;
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}

/** An integer in [0, n). */
function randInt(rng: () => number, n: number): number {
  return Math.floor(rng() * n);
}

function parseSeed(raw: string | undefined): number {
  if (raw === 'random') return randomInt(2 ** 32 - 1);
  if (raw === undefined || raw === '') return 20_240_611;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** 32)
    throw new Error(`FRONTIER_CONCURRENCY_SEED must be a uint32 or "random", got ${raw}`);
  return n;
}
