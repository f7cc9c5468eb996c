import { mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, withLock } from './redis-cluster-lock';
import {
  createCluster,
  ensureFree,
  isHealthy,
  logTail,
  startNode,
  stopNodes,
  waitFor,
  withNodeFiles,
} from './redis-cluster-nodes';

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

function isTrue(v: string | undefined): boolean {
  return v === '1' || v === 'true' || v === 'yes';
}
