import { execFile } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

/**
 * A throw-away Redis Cluster on loopback for tests: N masters, no replicas, no persistence.
 *
 * Life cycle (see test/global-setup.ts):
 * - Started lazily by the first test file that asks for it (`startLocalRedisCluster`), so runs
 *   that never touch the cluster pay nothing. Starting takes about 2 s: a cluster master does not
 *   report `cluster_state:ok` earlier than 2 s after its start (Redis' CLUSTER_WRITABLE_DELAY).
 * - Shared by every test file of the run, and by parallel runs: the call is idempotent and
 *   serialized by a lock file, and a healthy cluster already on the ports is reused. Tests keep
 *   apart by key prefix (`uniquePrefix`) and delete their keys (`deleteKeysWithPrefix`).
 * - Stopped when the last vitest run using it ends (the global setup's teardown), so nothing is
 *   left running after `npm test`. `TEST_REDIS_CLUSTER_KEEP=1` keeps it for the next run.
 *
 * Files (node configs, logs, the lock, one marker per vitest run) live in
 * `$TMPDIR/crawler-redis-cluster-<basePort>`.
 */
export interface LocalRedisClusterOptions {
  /** Port of the first node; node i listens on basePort + i (its bus on + 10000). Default 7101, or TEST_REDIS_CLUSTER_PORT. */
  basePort?: number;
  /** Masters (no replicas). Default 3. */
  masters?: number;
}

export interface LocalRedisCluster {
  /** Seed node URL, for `connectRedis(url, { cluster: true })`. */
  url: string;
  ports: number[];
  /** True when this call started the nodes, false when it joined a healthy running cluster. */
  started: boolean;
  /** Stops the nodes and removes their files, whoever started them (tests leave this to the global teardown). */
  stop(): Promise<void>;
}

const SLOTS = 16384;
const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function defaultClusterBasePort(): number {
  const p = Number(process.env.TEST_REDIS_CLUSTER_PORT ?? '');
  return Number.isInteger(p) && p > 0 && p < 55_000 ? p : 7101;
}

function layout(opts: LocalRedisClusterOptions) {
  const basePort = opts.basePort ?? defaultClusterBasePort();
  const masters = opts.masters ?? 3;
  if (!Number.isInteger(masters) || masters < 1 || masters > 16)
    throw new Error(`masters must be 1..16, got ${masters}`);
  const ports = Array.from({ length: masters }, (_, i) => basePort + i);
  const dir = join(tmpdir(), `crawler-redis-cluster-${basePort}`);
  mkdirSync(join(dir, 'runs'), { recursive: true });
  return { basePort, masters, ports, dir: realpathSync(dir) };
}

/** Starts (or joins) the local cluster and waits until every node reports `cluster_state:ok`. */
export async function startLocalRedisCluster(
  opts: LocalRedisClusterOptions = {},
): Promise<LocalRedisCluster> {
  const { ports, dir, masters } = layout(opts);
  const started = await withLock(dir, async () => {
    if (await isHealthy(ports, masters)) return false;
    await stopNodes(withNodeFiles(ports, dir), dir); // a broken or differently sized one of ours
    await ensureFree(ports);
    await Promise.all(ports.map((port) => startNode(port, dir)));
    await createCluster(ports);
    await waitFor(
      () => isHealthy(ports, masters),
      20_000,
      () =>
        `Redis Cluster on ports ${ports.join(', ')} did not reach cluster_state:ok${logTail(dir, ports)}`,
    );
    return true;
  });
  return {
    url: `redis://127.0.0.1:${ports[0]}`,
    ports,
    started,
    stop: () => stopLocalRedisCluster(opts),
  };
}

/** Stops the cluster's nodes (only nodes this helper started: their dir is ours) and removes its files. */
export async function stopLocalRedisCluster(opts: LocalRedisClusterOptions = {}): Promise<void> {
  const { ports, dir } = layout(opts);
  await withLock(dir, () => stopNodes(withNodeFiles(ports, dir), dir));
}

/**
 * For a vitest global setup: marks this run as a user of the local cluster (which it does not
 * start). The returned teardown stops the cluster when no other live run uses it, unless
 * TEST_REDIS_CLUSTER_KEEP=1.
 */
export function holdLocalRedisCluster(opts: LocalRedisClusterOptions = {}): () => Promise<void> {
  const { ports, dir } = layout(opts);
  const marker = join(dir, 'runs', String(process.pid));
  writeFileSync(marker, String(Date.now()));
  return async () => {
    rmSync(marker, { force: true });
    if (isTrue(process.env.TEST_REDIS_CLUSTER_KEEP)) return;
    await withLock(dir, async () => {
      let others = 0;
      for (const run of readdirSync(join(dir, 'runs'))) {
        if (isAlive(Number(run))) others++;
        else rmSync(join(dir, 'runs', run), { force: true }); // a run that was killed
      }
      if (others === 0) await stopNodes(withNodeFiles(ports, dir), dir);
    });
  };
}

// ---------------------------------------------------------------------------------------------

async function startNode(port: number, dir: string): Promise<void> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    // Announced in CLUSTER SLOTS; a node that never met another would otherwise announce ''.
    '--cluster-announce-ip',
    '127.0.0.1',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'yes',
    '--dir',
    dir,
    '--pidfile',
    join(dir, `redis-${port}.pid`),
    '--logfile',
    join(dir, `redis-${port}.log`),
  ];
  try {
    await execFileAsync('redis-server', args, { timeout: 10_000 });
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT')
      throw new Error(
        'redis-server is not on PATH: install Redis 7 (e.g. `apt-get install redis-server`) to run the Redis Cluster tests, or set TEST_REDIS_CLUSTER=0 to skip them.',
      );
    throw err;
  }
  await waitFor(
    async () => (await onNode(port, (r) => r.call('PING'))) === 'PONG',
    5000,
    () => `redis-server on port ${port} did not answer${logTail(dir, [port])}`,
  );
}

/**
 * What `redis-cli --cluster create … --cluster-replicas 0` does, without its fixed one-second
 * sleeps (3.0 s → 2.1 s here): split the slots evenly, give each master its own config epoch,
 * and introduce the nodes to each other.
 */
async function createCluster(ports: number[]): Promise<void> {
  const n = ports.length;
  await Promise.all(
    ports.map((port, i) =>
      onNode(
        port,
        async (r) => {
          const first = Math.floor((i * SLOTS) / n);
          const last = Math.floor(((i + 1) * SLOTS) / n) - 1;
          await r.call('CLUSTER', 'ADDSLOTSRANGE', first, last);
          await r.call('CLUSTER', 'SET-CONFIG-EPOCH', i + 1);
        },
        true,
      ),
    ),
  );
  // Every pair meets directly: waiting for gossip to introduce the third node can take seconds.
  await Promise.all(
    ports.map((port, i) =>
      onNode(
        port,
        async (r) => {
          for (const other of ports.slice(i + 1))
            await r.call('CLUSTER', 'MEET', '127.0.0.1', other);
        },
        true,
      ),
    ),
  );
}

/** Every node answers, sees all masters (and only ours), all slots served, state ok. */
async function isHealthy(ports: number[], masters: number): Promise<boolean> {
  const want = [...ports].sort((a, b) => a - b).join(',');
  const views = await Promise.all(
    ports.map((port) =>
      onNode(port, async (r) => {
        const info = String(await r.call('CLUSTER', 'INFO'));
        const nodes = String(await r.call('CLUSTER', 'NODES'));
        return { info, nodes };
      }),
    ),
  );
  return views.every((v) => {
    if (!v) return false;
    const field = (name: string) => new RegExp(`^${name}:(\\S+)`, 'm').exec(v.info)?.[1];
    const seen = v.nodes
      .split('\n')
      .filter((l) => l.includes('master'))
      .map((l) => Number(/:(\d+)@/.exec(l)?.[1]))
      .sort((a, b) => a - b)
      .join(',');
    return (
      field('cluster_state') === 'ok' &&
      field('cluster_slots_ok') === String(SLOTS) &&
      field('cluster_known_nodes') === String(masters) &&
      seen === want
    );
  });
}

/** Refuses to start over anything else listening on the nodes' ports or bus ports. */
async function ensureFree(ports: number[]): Promise<void> {
  for (const port of ports) {
    if ((await canListen(port)) && (await canListen(port + 10_000))) continue;
    throw new Error(
      `Port ${port} or ${port + 10_000} is taken by something other than this test cluster; ` +
        `stop it or pick other ports with TEST_REDIS_CLUSTER_PORT.`,
    );
  }
}

/** The ports plus those of nodes that left files in the dir (e.g. a cluster of another size). */
function withNodeFiles(ports: number[], dir: string): number[] {
  const found = readdirSync(dir)
    .map((f) => /^redis-(\d+)\.pid$/.exec(f)?.[1])
    .filter((p): p is string => p !== undefined)
    .map(Number);
  return [...new Set([...ports, ...found])];
}

/** Shuts down the nodes on these ports that run in our dir (never anything else). */
async function stopNodes(ports: number[], dir: string): Promise<void> {
  await Promise.all(ports.map(async (port) => (await isOurNode(port, dir)) && shutdownNode(port)));
  cleanNodeFiles(dir);
}

async function isOurNode(port: number, dir: string): Promise<boolean> {
  const reply = await onNode(port, (r) => r.call('CONFIG', 'GET', 'dir'));
  return Array.isArray(reply) && reply[1] === dir;
}

async function shutdownNode(port: number): Promise<void> {
  // The node closes the connection instead of answering.
  await onNode(port, (r) => r.call('SHUTDOWN', 'NOSAVE').catch(() => undefined));
  await waitFor(
    () => canListen(port),
    5000,
    () => `Redis on port ${port} did not shut down`,
  );
}

function cleanNodeFiles(dir: string): void {
  for (const f of readdirSync(dir)) {
    if (/^(nodes|redis)-\d+\.(conf|pid|log)$/.test(f) || f === 'dump.rdb')
      rmSync(join(dir, f), { force: true });
  }
}

/** Runs `fn` on a plain connection to one node; undefined when nothing answers on the port. */
async function onNode<T>(
  port: number,
  fn: (r: Redis) => Promise<T>,
  mustAnswer = false,
): Promise<T | undefined> {
  const r = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    connectTimeout: 1000,
    commandTimeout: 2000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
  } catch (err) {
    r.disconnect();
    if (mustAnswer) throw err;
    return undefined;
  }
  try {
    return await fn(r);
  } catch (err) {
    if (mustAnswer) throw err;
    return undefined;
  } finally {
    r.disconnect();
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function waitFor(
  ok: () => Promise<boolean>,
  timeoutMs: number,
  message: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(message());
    await sleep(25);
  }
}

function logTail(dir: string, ports: number[]): string {
  const tails = ports.map((port) => {
    try {
      const lines = readFileSync(join(dir, `redis-${port}.log`), 'utf8')
        .trim()
        .split('\n');
      return `\n--- redis-${port}.log\n${lines.slice(-8).join('\n')}`;
    } catch {
      return '';
    }
  });
  return tails.join('');
}

/**
 * A lock file holding the owner's pid, so that parallel test files (and parallel runs) start the
 * cluster once. A lock whose owner died is taken over.
 */
async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = join(dir, 'lock');
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
    }
    const owner = Number(readIfExists(lock));
    if (owner > 0 && !isAlive(owner)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${lock} is held by pid ${owner} for too long`);
    await sleep(50);
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

function readIfExists(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err instanceof Error && 'code' in err && err.code === 'EPERM';
  }
}

function isTrue(v: string | undefined): boolean {
  return v === '1' || v === 'true' || v === 'yes';
}
