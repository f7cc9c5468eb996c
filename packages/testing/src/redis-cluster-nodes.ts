import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

// The nodes of the local Redis Cluster (redis-cluster.ts): redis-server processes on loopback,
// made one cluster, checked, and shut down — only ever the ones running in its own dir.

const SLOTS = 16384;
const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Starts one cluster-enabled redis-server (daemonized, files in `dir`) and waits for its PING. */
export async function startNode(port: number, dir: string): Promise<void> {
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
export async function createCluster(ports: number[]): Promise<void> {
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
export async function isHealthy(ports: number[], masters: number): Promise<boolean> {
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
export async function ensureFree(ports: number[]): Promise<void> {
  for (const port of ports) {
    if ((await canListen(port)) && (await canListen(port + 10_000))) continue;
    throw new Error(
      `Port ${port} or ${port + 10_000} is taken by something other than this test cluster; ` +
        `stop it or pick other ports with TEST_REDIS_CLUSTER_PORT.`,
    );
  }
}

/** The ports plus those of nodes that left files in the dir (e.g. a cluster of another size). */
export function withNodeFiles(ports: number[], dir: string): number[] {
  const found = readdirSync(dir)
    .map((f) => /^redis-(\d+)\.pid$/.exec(f)?.[1])
    .filter((p): p is string => p !== undefined)
    .map(Number);
  return [...new Set([...ports, ...found])];
}

/** Shuts down the nodes on these ports that run in our dir (never anything else). */
export async function stopNodes(ports: number[], dir: string): Promise<void> {
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

/** Polls `ok` every 25 ms until it holds; throws `message()` after `timeoutMs`. */
export async function waitFor(
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

/** The last lines of the nodes' logs, for an error message. */
export function logTail(dir: string, ports: number[]): string {
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
