import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

/** A free TCP port on 127.0.0.1 (bound, then released: free for a moment, as usual). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A child of the bench: its output goes to our stderr with a label, the last lines kept. */
export interface Child {
  readonly label: string;
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves with (code, signal) when it exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** Its last stderr/stdout lines (for error messages). */
  tail(): string[];
}

/**
 * Spawns `command args` with its own environment. Lines it prints go to our stderr, prefixed,
 * when `echo` says so (errors and warnings always show in `tail()`).
 */
export function spawnChild(
  label: string,
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; echo?: (line: string) => boolean },
): Child {
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${label}: spawn failed`);
  const lines: string[] = [];
  const echo = opts.echo ?? (() => true);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > 20) lines.shift();
      if (echo(line)) process.stderr.write(`[${label}] ${line}\n`);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    label,
    process: child,
    pid: child.pid,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    tail: () => lines.slice(),
  };
}

/** SIGKILL, and waits until it is gone. */
export async function killChild(c: Child): Promise<void> {
  if (c.alive()) c.process.kill('SIGKILL');
  await c.exited;
}

/**
 * SIGTERM, then waits up to `graceMs` for it to exit, else SIGKILL. Returns whether it exited
 * by itself, and its exit code.
 */
export async function stopChild(
  c: Child,
  graceMs: number,
): Promise<{ clean: boolean; code: number | null; ms: number }> {
  const t0 = performance.now();
  if (!c.alive()) {
    const { code } = await c.exited;
    return { clean: true, code, ms: 0 };
  }
  c.process.kill('SIGTERM');
  const r = await Promise.race([c.exited, sleep(graceMs).then(() => null)]);
  if (r === null) {
    await killChild(c);
    return { clean: false, code: null, ms: performance.now() - t0 };
  }
  return { clean: true, code: r.code, ms: performance.now() - t0 };
}

/**
 * Polls `url` until it answers with a status below 500 (or `ok` accepts the status), the child
 * exits, or `timeoutMs` passes; throws with the child's last lines in the last two cases.
 */
export async function waitForHttp(
  c: Child,
  url: string,
  timeoutMs: number,
  ok: (status: number) => boolean = (s) => s < 500,
): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (!c.alive())
      throw new Error(`${c.label} exited before it answered at ${url}:\n${c.tail().join('\n')}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      if (ok(r.status)) return;
    } catch {
      // not up yet
    }
    await sleep(200);
  }
  throw new Error(
    `${c.label} did not answer at ${url} within ${timeoutMs} ms:\n${c.tail().join('\n')}`,
  );
}
