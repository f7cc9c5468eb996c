import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONSOLE_DIR, consoleBuildIsStale } from '../../scripts/console-build-state.mjs';

export { CONSOLE_DIR };
const NEXT_BIN = join(CONSOLE_DIR, '../../node_modules/next/dist/bin/next');

/** Held while one process builds: test files run in parallel, and Next builds one at a time. */
const BUILD_LOCK = join(
  tmpdir(),
  `crawler-console-build-${Buffer.from(CONSOLE_DIR).toString('hex').slice(-16)}.lock`,
);
/** A lock older than this was left by a build that died (a build takes about a minute). */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * `next build`, only when the sources changed since the last one (about a minute). Callers in
 * other processes wait for a build under way, then find it fresh.
 */
export async function buildConsoleIfStale(): Promise<void> {
  for (;;) {
    if (!consoleBuildIsStale()) return;
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      const lock = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > STALE_LOCK_MS)
        rmSync(BUILD_LOCK, { recursive: true, force: true });
      await sleep(1000);
    }
  }
  try {
    if (!consoleBuildIsStale()) return;
    const r = spawnSync(process.execPath, [NEXT_BIN, 'build'], {
      cwd: CONSOLE_DIR,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`next build failed:\n${r.stdout}\n${r.stderr}`);
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface ConsoleServer {
  url: string;
  /** What the server printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * `next start` on a free loopback port, talking to the coordinator at `coordinatorUrl`; `env`
 * adds variables (e.g. CONSOLE_SECRET).
 */
export async function startConsole(
  coordinatorUrl: string,
  env: Record<string, string> = {},
): Promise<ConsoleServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'],
    {
      cwd: CONSOLE_DIR,
      env: {
        ...process.env,
        COORDINATOR_URL: coordinatorUrl,
        NEXT_TELEMETRY_DISABLED: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`next start exited: ${out}`);
    try {
      const r = await fetch(`${url}/login`, { signal: AbortSignal.timeout(1000) });
      if (r.status < 500) break;
    } catch {
      // not up yet
    }
    await sleep(200);
  }
  return {
    url,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
