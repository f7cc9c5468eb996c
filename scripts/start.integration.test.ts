import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { agentsKey } from '@crawler/domain/messages';
import { makeTestEnv, type TestEnv } from '../apps/coordinator/test/test-env';
import { buildConsoleIfStale } from '../test/console/console-server';

// `npm start` stopped the way an init system stops it: real npm, real start.mjs, the compiled
// coordinator, two agents and the Next console, each run with its own database, Redis key
// prefix, data folder and ports. A signal to npm (SIGTERM, SIGINT, or a terminal's Ctrl-C to
// its whole process group) drains and stops every process and frees every port; a SIGKILLed
// start.mjs leaves children that stop themselves; a port in use stops start-up at once.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Generous for a loaded machine: an idle one stops the stack in about 3 s. */
const STOP_BOUND_MS = 30_000;

let redis: RedisClient;
beforeAll(async () => {
  // start.mjs builds what is stale itself; doing it here keeps each start quick (and the
  // console build behind the lock the console tests share).
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--quiet'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  await buildConsoleIfStale();
  redis = await connectRedis(REDIS_URL);
}, 300_000);
afterAll(async () => {
  await redis?.quit();
});

/** A process as /proc knows it: its start time tells it from a later one with its pid. */
interface Pid {
  pid: number;
  started: string;
  command: string;
}

function stat(pid: number): { ppid: number; state: string; started: string } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0]!, ppid: Number(f[1]), started: f[19]! };
  } catch {
    return null;
  }
}

function alive(p: Pid): boolean {
  const s = stat(p.pid);
  return s !== null && s.started === p.started && s.state !== 'Z';
}

/** `root` and every process below it. */
function tree(root: number): Pid[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), Number(name)]);
  }
  const out: Pid[] = [];
  const walk = (pid: number): void => {
    const s = stat(pid);
    if (!s) return;
    let command = '(gone)';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      // It exited meanwhile: still listed, alive() tells.
    }
    out.push({ pid, started: s.started, command });
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

function canListen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen({ host, port, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** `count` consecutive free ports on loopback (an agent's metrics port follows the previous). */
async function freeRange(count: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if ((await Promise.all(ports.map((p) => canListen(p)))).every(Boolean)) return base;
  }
}

async function until(what: string | (() => string), cond: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) {
      throw new Error(
        `timed out after ${ms} ms waiting for ${typeof what === 'string' ? what : what()}`,
      );
    }
    await sleep(50);
  }
}

interface Stack {
  /** npm, or node running start.mjs. */
  top: ChildProcess;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  ports: number[];
  t: TestEnv;
  /** Its processes once it is up. */
  procs: Pid[];
}
const stacks: Stack[] = [];
const held: Server[] = [];

afterEach(async () => {
  for (const s of held.splice(0)) await new Promise((resolve) => s.close(resolve));
  for (const stack of stacks.splice(0)) {
    // Whatever a failed test left running.
    for (const p of [...stack.procs, ...tree(stack.top.pid!)].filter(alive))
      process.kill(p.pid, 'SIGKILL');
    await deleteKeysWithPrefix(redis, stack.t.config.REDIS_PREFIX);
    await stack.t.cleanup();
  }
}, 60_000);

/** Listens on `host:port` until the test ends (another process holding the port). */
async function hold(port: number, host = '127.0.0.1'): Promise<void> {
  const server = createServer();
  server.listen({ host, port, exclusive: true });
  await once(server, 'listening');
  held.push(server);
}

/**
 * Runs `npm <args>` (or `node <args>`) in the repository, in a process group of its own (as a
 * terminal runs a command), on fresh ports: coordinator, console, coordinator metrics and the
 * two agents' metrics (`taken`: the index of one held by another process first).
 */
async function launch(
  cmd: 'npm' | 'node',
  args: string[],
  opts: { extra?: NodeJS.ProcessEnv; taken?: number } = {},
) {
  const t = makeTestEnv();
  const base = await freeRange(5);
  const ports = [base, base + 1, base + 2, base + 3, base + 4];
  if (opts.taken !== undefined) await hold(ports[opts.taken]!);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: t.config.DATABASE_URL,
    REDIS_URL,
    REDIS_PREFIX: t.config.REDIS_PREFIX,
    REDIS_VOLATILE_OK: 'true',
    DATA_DIR: t.dataDir,
    ADMIN_EMAIL: t.admin.email,
    ADMIN_PASSWORD: t.admin.password,
    ADMIN_TOKEN: t.admin.token,
    PASSWORD_SCRYPT_LOG2_N: '14',
    FRONTIER_SHARDS: '16',
    LOG_LEVEL: 'warn',
    COORDINATOR_PORT: String(base),
    CONSOLE_PORT: String(base + 1),
    COORDINATOR_METRICS_PORT: String(base + 2),
    AGENT_METRICS_PORT: String(base + 3),
    AGENT_PROCESSES: '2',
    AGENT_PARSE_THREADS: '1',
    AGENT_ID: 'stop-test',
    npm_config_update_notifier: 'false',
    ...opts.extra,
  };
  delete env.COORDINATOR_URL;
  const top = spawn(cmd === 'npm' ? 'npm' : process.execPath, args, {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  top.stdout.on('data', (d: Buffer) => (output += d.toString()));
  top.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    top.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const stack: Stack = { top, exit, output: () => output, ports, t, procs: [] };
  stacks.push(stack);
  return stack;
}

/** Starts the stack and waits for its banner; returns its processes. */
async function started(stack: Stack): Promise<Pid[]> {
  await until(
    'the banner',
    () => /^\s+Stop\s+Ctrl-C/m.test(stack.output()) || stack.top.exitCode !== null,
    180_000,
  );
  expect(stack.top.exitCode, stack.output()).toBeNull();
  // The banner names only addresses that answer.
  const banner = stack.output().slice(stack.output().lastIndexOf('  Console  '));
  expect(banner).not.toContain('not answering');
  const urls = [...banner.matchAll(/^ {2}(?:Console|API) +(http:\/\/\S+)/gm)].map((m) => m[1]!);
  expect(urls).toEqual([
    `http://127.0.0.1:${stack.ports[1]}`,
    `http://127.0.0.1:${stack.ports[0]}/v1/stats`,
  ]);
  for (const url of urls) expect((await fetch(url)).status).toBeLessThan(500);
  const procs = tree(stack.top.pid!);
  stack.procs = procs;
  // (npm,) start.mjs, the coordinator, two agents, the console.
  const expected = stack.top.spawnfile === 'npm' ? 6 : 5;
  expect(procs.length, procs.map((p) => p.command).join('\n')).toBeGreaterThanOrEqual(expected);
  return procs;
}

/** Every process gone, every port free, both agents drained (off the live-agents set). */
async function allStopped(stack: Stack, procs: Pid[], boundMs: number): Promise<void> {
  await until(
    () =>
      `every process to stop (${procs
        .filter(alive)
        .map((p) => p.command)
        .join(', ')})`,
    () => !procs.some(alive),
    boundMs,
  );
  for (const port of stack.ports) expect(await canListen(port), `port ${port}`).toBe(true);
  const key = agentsKey(stack.t.config.REDIS_PREFIX);
  expect(await redis.zcard(key), `agents left in ${key}\n${stack.output()}`).toBe(0);
}

describe('npm start stops as an init system stops it', () => {
  it('npm runs start.mjs itself: SIGTERM to npm drains and stops everything', async () => {
    const stack = await launch('npm', ['start']);
    const procs = await started(stack);
    // No shell between npm and start.mjs to die of the signal and leave start.mjs behind.
    expect(procs[1]!.command).toMatch(/^\S*node scripts\/start\.mjs$/);
    const t0 = Date.now();
    process.kill(stack.top.pid!, 'SIGTERM');
    const exit = await Promise.race([stack.exit, sleep(STOP_BOUND_MS).then(() => null)]);
    expect(exit, stack.output()).toEqual({ code: 0, signal: null });
    console.log(`npm start: SIGTERM to npm → stopped in ${Date.now() - t0} ms`);
    await allStopped(stack, procs, 5_000);
    expect(stack.output()).toContain('▸ stopped');
    expect(stack.output()).not.toContain('stopping at once');
  }, 300_000);

  it('SIGINT to npm drains and stops everything', async () => {
    const stack = await launch('npm', ['start']);
    const procs = await started(stack);
    process.kill(stack.top.pid!, 'SIGINT');
    const exit = await Promise.race([stack.exit, sleep(STOP_BOUND_MS).then(() => null)]);
    expect(exit, stack.output()).toEqual({ code: 0, signal: null });
    await allStopped(stack, procs, 5_000);
    expect(stack.output()).toContain('▸ stopped');
  }, 300_000);

  it('a terminal’s Ctrl-C (SIGINT to the group, passed on by npm too) is one clean stop', async () => {
    const stack = await launch('npm', ['start']);
    const procs = await started(stack);
    process.kill(-stack.top.pid!, 'SIGINT');
    const exit = await Promise.race([stack.exit, sleep(STOP_BOUND_MS).then(() => null)]);
    expect(exit, stack.output()).toEqual({ code: 0, signal: null });
    await allStopped(stack, procs, 5_000);
    expect(stack.output()).not.toContain('stopping at once');
  }, 300_000);

  it('children of a SIGKILLed start.mjs stop themselves (agents drain) and free the ports', async () => {
    const stack = await launch('node', ['scripts/start.mjs']);
    const procs = await started(stack);
    const t0 = Date.now();
    process.kill(stack.top.pid!, 'SIGKILL');
    await allStopped(stack, procs, 15_000);
    console.log(`start.mjs SIGKILLed → its children stopped in ${Date.now() - t0} ms`);
  }, 300_000);

  it('start.mjs stops everything once npm is gone (SIGKILL to npm)', async () => {
    const stack = await launch('npm', ['start']);
    const procs = await started(stack);
    process.kill(stack.top.pid!, 'SIGKILL');
    await allStopped(stack, procs, STOP_BOUND_MS);
    expect(stack.output()).toMatch(/npm \(pid \d+\) is gone: stopping/);
    expect(stack.output()).toContain('▸ stopped');
  }, 300_000);

  it.each([
    ['CONSOLE_PORT', 1],
    ['COORDINATOR_PORT', 0],
    ['COORDINATOR_METRICS_PORT', 2],
    ['AGENT_METRICS_PORT', 4], // agent 2's: AGENT_METRICS_PORT + 1
  ])(
    'a port in use (%s) stops start-up at once, naming it',
    async (variable, index) => {
      const t0 = Date.now();
      const stack = await launch('npm', ['start'], { taken: index });
      const port = stack.ports[index]!;
      const exit = await stack.exit;
      expect(exit.code, stack.output()).not.toBe(0);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(stack.output()).toMatch(
        new RegExp(`port ${port} is in use by another process .*set ${variable} to a free port`),
      );
      expect(stack.output()).toContain('nothing was started');
      expect(stack.output()).not.toContain('starting the coordinator');
    },
    60_000,
  );

  it('npm run demo: the synthetic web’s port in use stops start-up at once, naming DEMO_PORT', async () => {
    const port = await freeRange(1);
    await hold(port, '127.1.1.37'); // host 37 of the synthetic web's 300
    const stack = await launch('npm', ['run', 'demo'], { extra: { DEMO_PORT: String(port) } });
    const exit = await stack.exit;
    expect(exit.code, stack.output()).not.toBe(0);
    expect(stack.output()).toContain(
      `port ${port} is in use by another process (the synthetic web, 127.1.1.37:${port}): ` +
        'stop what holds it, or set DEMO_PORT to a free port',
    );
    expect(stack.output()).not.toContain('starting the synthetic web');
  }, 60_000);
});
