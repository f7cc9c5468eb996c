import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor, type ExitInfo, type Proc } from './supervise.mjs';

const SUPERVISE_URL = new URL('./supervise.mjs', import.meta.url).href;

// npm start's supervision (scripts/supervise.mjs) with real child processes that crash, are
// SIGKILLed, fail at start or ignore SIGTERM. Delays are shortened; the rules are the same.
const supervisors: Supervisor[] = [];
afterEach(async () => {
  for (const s of supervisors.splice(0)) {
    s.stopRestarts();
    await s.stop(s.procs, 1_000);
  }
});

function supervisor(opts: ConstructorParameters<typeof Supervisor>[0] = {}) {
  const lines: string[] = [];
  const errors: string[] = [];
  const fatal: string[] = [];
  const exits: ExitInfo[] = [];
  const delays: number[] = [];
  /** Called with each output line (e.g. to mark a launch up when it says it is ready). */
  const hooks: { onLine?: (line: string) => void } = {};
  const s = new Supervisor({
    initialDelayMs: 50,
    maxDelayMs: 200,
    healthyAfterMs: 60_000,
    upAfterMs: 300,
    out: (l) => {
      lines.push(l);
      hooks.onLine?.(l);
    },
    err: (l) => errors.push(l),
    onFatal: (_p, reason) => fatal.push(reason),
    ...opts,
  });
  s.on('exit', (e: ExitInfo) => exits.push(e));
  s.on('restart', (r: { delayMs: number }) => delays.push(r.delayMs));
  supervisors.push(s);
  return { s, lines, errors, fatal, exits, delays, hooks };
}

/** `node -e <code>`: a child written inline. */
const inline = (code: string) => ['-e', code];
/** Prints its pid and AGENT_ID, then stays up. */
const AGENT = inline(
  `console.log('ready', process.pid, process.env.AGENT_ID); setInterval(() => {}, 1000);`,
);

async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Whether `pid` is still a process (not yet reaped counts as gone). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function launched(s: Supervisor, proc: Proc, n: number): Promise<void> {
  await until(
    `launch ${n} of ${proc.name}`,
    () => proc.launches >= n && proc.child?.pid !== undefined,
  );
}

describe('npm start supervision', () => {
  it('restarts an agent SIGKILLed while starting, with the same id, and keeps going', async () => {
    const { s, lines, errors, fatal, exits } = supervisor({ upAfterMs: 3_000 });
    const agent = s.start('agent-1', AGENT, {
      role: 'agent',
      env: { ...process.env, AGENT_ID: 'box-1' },
    });
    // kill -9 well before it counts as up (after 3 s), three times over.
    for (let n = 1; n <= 3; n++) {
      await launched(s, agent, n);
      await until('its first line', () => lines.filter((l) => l.includes('ready')).length >= n);
      process.kill(agent.child!.pid!, 'SIGKILL');
      await until(`exit ${n}`, () => exits.length >= n);
    }
    await launched(s, agent, 4);
    await until('the 4th ready line', () => lines.filter((l) => l.includes('ready')).length >= 4);
    expect(fatal).toEqual([]);
    expect(exits.map((e) => [e.signal, e.startFailure, e.requested])).toEqual([
      ['SIGKILL', false, false],
      ['SIGKILL', false, false],
      ['SIGKILL', false, false],
    ]);
    const ready = lines.filter((l) => l.includes('ready'));
    expect(ready.every((l) => l.startsWith('[agent-1]') && l.endsWith(' box-1'))).toBe(true);
    expect(new Set(ready.map((l) => l.split(' ').at(-2))).size).toBe(4); // four processes
    expect(errors[0]).toMatch(
      /agent-1 exited while starting, after .*killed by SIGKILL.*restarting/,
    );
  });

  it('restarts a child that crashes after it was up, doubling the delay up to the cap', async () => {
    const { s, errors, fatal, delays, exits } = supervisor({ upAfterMs: 100 });
    const crash = inline(
      `setTimeout(() => { console.error('boom: out of widgets'); process.exit(3); }, 250);`,
    );
    const proc = s.start('coordinator', crash);
    await until('5 restarts', () => delays.length >= 5, 20_000);
    expect(fatal).toEqual([]);
    expect(delays.slice(0, 5)).toEqual([50, 100, 200, 200, 200]);
    expect(exits.every((e) => e.code === 3 && !e.startFailure)).toBe(true);
    expect(errors[0]).toMatch(
      /coordinator exited after [\d.]+ s \(exit code 3\); restarting it in 0\.1 s/,
    );
    expect(errors[0]).toContain('│ boom: out of widgets');
    expect(proc.launches).toBeGreaterThanOrEqual(5);
  });

  it('goes back to the first delay after a run long enough to count as healthy', async () => {
    const { s, delays } = supervisor({ upAfterMs: 50, healthyAfterMs: 300 });
    s.start('agent', inline(`setTimeout(() => process.exit(1), 400);`));
    await until('3 restarts', () => delays.length >= 3, 20_000);
    expect(delays.slice(0, 3)).toEqual([50, 50, 50]);
  });

  it('stops everything when a child fails at start N times in a row, with its error', async () => {
    // Never up by time (a loaded machine may take a while to even start node).
    const { s, errors, fatal, exits } = supervisor({ maxStartFailures: 3, upAfterMs: 60_000 });
    const proc = s.start(
      'coordinator',
      inline(
        `console.error('✗ Invalid configuration: REDIS_URL: expected a URL'); process.exit(1);`,
      ),
    );
    await until('the fatal call', () => fatal.length > 0);
    expect(fatal).toEqual(['coordinator failed 3 times in a row while starting (exit code 1)']);
    expect(exits.map((e) => e.startFailure)).toEqual([true, true, true]);
    expect(errors.at(-1)).toContain('stopping everything');
    expect(errors.at(-1)).toContain('│ ✗ Invalid configuration: REDIS_URL: expected a URL');
    await sleep(400);
    expect(proc.launches).toBe(3); // not started again
  });

  it('a run that came up resets the count of start failures', async () => {
    // Fails at start twice, then comes up (says READY: marked up), then crashes: never fatal.
    const { s, fatal, exits, hooks } = supervisor({ maxStartFailures: 3, upAfterMs: 60_000 });
    const mark = join(tmpdir(), `supervise-${process.pid}-${Date.now()}`);
    const env = { ...process.env, MARK: mark };
    const code = `
      const fs = require('node:fs'); const f = process.env.MARK;
      const n = fs.existsSync(f) ? Number(fs.readFileSync(f, 'utf8')) : 0;
      fs.writeFileSync(f, String(n + 1));
      if (n % 3 < 2) process.exit(2);
      console.log('READY'); setTimeout(() => process.exit(2), 300);`;
    const proc = s.start('agent', inline(code), { env });
    hooks.onLine = (l) => {
      if (l.endsWith('READY')) s.markUp(proc);
    };
    await until('7 exits', () => exits.length >= 7, 20_000).finally(() =>
      rmSync(mark, { force: true }),
    );
    expect(fatal).toEqual([]);
    expect(exits.slice(0, 6).map((e) => e.startFailure)).toEqual([
      true,
      true,
      false,
      true,
      true,
      false,
    ]);
  });

  it('counts a launch as up once its health URL answers', async () => {
    let healthy = false;
    const server: Server = createServer((_req, res) => {
      res.statusCode = healthy ? 200 : 503;
      res.end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
    try {
      // Exits 1 after 600 ms each time: a start failure until the health URL answers.
      const { s, fatal, exits } = supervisor({ maxStartFailures: 2 });
      const proc = s.start('coordinator', inline(`setTimeout(() => process.exit(1), 600);`), {
        healthUrl: url,
      });
      await until('first exit', () => exits.length >= 1);
      expect(exits[0]!.startFailure).toBe(true);
      healthy = true;
      await until('an up launch', () => proc.up);
      await until('second exit', () => exits.length >= 2);
      expect(exits[1]!.startFailure).toBe(false);
      expect(fatal).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('a requested stop is not restarted; a child ignoring SIGTERM is killed after the grace', async () => {
    const { s, lines, errors, exits } = supervisor();
    const calm = s.start('agent-1', AGENT);
    const stubborn = s.start(
      'agent-2',
      inline(
        `process.on('SIGTERM', () => console.log('not yet')); console.log('armed'); ` +
          `setInterval(() => {}, 1000);`,
      ),
    );
    // Both running, the second with its SIGTERM handler installed.
    await until('both ready', () =>
      ['[agent-1]', '[agent-2]'].every((p) =>
        lines.some((l) => l.startsWith(p) && /ready|armed/.test(l)),
      ),
    );
    const t0 = Date.now();
    await s.stop([calm, stubborn], 500);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
    await until('both exits reported', () => exits.length >= 2);
    expect(exits.every((e) => e.requested)).toBe(true);
    expect(errors.some((l) => /did not stop within 0\.5 s; killing it/.test(l))).toBe(true);
    await sleep(200);
    expect([calm.launches, stubborn.launches]).toEqual([1, 1]);
  });

  it('takes the whole process group down with a child that dies', async () => {
    const { s, lines, exits } = supervisor();
    // The child starts a grandchild in its group, prints its pid, then is killed.
    const proc = s.start(
      'console',
      inline(`
        const g = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
        console.log('grandchild', g.pid); setInterval(() => {}, 1000);`),
    );
    await until('grandchild pid', () => lines.some((l) => l.includes('grandchild')));
    const pid = Number(
      lines
        .find((l) => l.includes('grandchild'))!
        .split(' ')
        .at(-1),
    );
    process.kill(proc.child!.pid!, 'SIGKILL');
    await until('exit', () => exits.length >= 1);
    await until('grandchild gone', () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    });
  });
  it('stops everything at once when a launch said why it cannot start (a port in use)', async () => {
    // Up (its health check answered, from whoever holds the port), then the listen fails: a
    // restart would fail the same way.
    const { s, errors, fatal, exits } = supervisor({
      upAfterMs: 50,
      fatalOutput: (p, line) =>
        line.includes('EADDRINUSE') ? `${p.name} could not listen: CONSOLE_PORT` : null,
    });
    const proc = s.start(
      'console',
      inline(
        `setTimeout(() => { console.error('Error: listen EADDRINUSE: address already in use 127.0.0.1:3000'); process.exit(1); }, 300);`,
      ),
    );
    await until('the fatal call', () => fatal.length > 0);
    expect(fatal).toEqual(['console could not listen: CONSOLE_PORT']);
    expect(exits.map((e) => e.startFailure)).toEqual([false]);
    expect(errors.at(-1)).toContain('stopping everything');
    await sleep(300);
    expect(proc.launches).toBe(1);
  });

  it('a child whose supervisor is SIGKILLed stops itself as if asked, and its group with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'supervise-orphan-'));
    const pids: number[] = [];
    let parent: ChildProcess | undefined;
    try {
      // The child writes its pid and its grandchild's, and on SIGTERM a file saying it drained.
      const child = `
        const fs = require('node:fs'); const dir = ${JSON.stringify(dir)};
        const g = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
        process.on('SIGTERM', () => { fs.writeFileSync(dir + '/drained', ''); setTimeout(() => process.exit(0), 200); });
        fs.writeFileSync(dir + '/pids', process.pid + ' ' + g.pid);
        setInterval(() => {}, 1000);`;
      parent = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { Supervisor } from ${JSON.stringify(SUPERVISE_URL)};
           new Supervisor().start('agent', ['-e', ${JSON.stringify(child)}]);
           setInterval(() => {}, 1000);`,
        ],
        { stdio: 'ignore' },
      );
      const pidsFile = join(dir, 'pids');
      await until('the child and grandchild', () => existsSync(pidsFile));
      await sleep(100);
      pids.push(...readFileSync(pidsFile, 'utf8').split(' ').map(Number));
      const [childPid, grandchildPid] = pids;
      expect(running(childPid!) && running(grandchildPid!)).toBe(true);
      parent.kill('SIGKILL');
      const t0 = Date.now();
      await until('the child gone', () => !running(childPid!), 5_000);
      await until('the grandchild gone', () => !running(grandchildPid!), 5_000);
      expect(Date.now() - t0).toBeLessThan(3_000);
      // It ran its SIGTERM handler (an agent drains there), rather than being killed.
      expect(existsSync(join(dir, 'drained'))).toBe(true);
    } finally {
      parent?.kill('SIGKILL');
      for (const pid of pids.filter(running)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
