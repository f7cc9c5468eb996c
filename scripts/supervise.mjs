// The supervision behind `npm start` (scripts/start.mjs): runs node child processes, each in a
// process group of its own, and restarts one that exits without being asked to.
// - Any exit that is not a requested stop — a crash, `kill -9` by an operator, at any time
//   after it started, also while it is still starting — is logged (exit code or signal, how
//   long it ran, its last stderr lines) and the child is started again after a backoff: 1 s,
//   doubling up to 30 s while it keeps failing, back to 1 s once a run lasted a minute.
// - Only a child that fails at start by itself `maxStartFailures` times in a row (a non-zero
//   exit code before it came up: a configuration error, a database that is down) is given up
//   on: `onFatal` is called with its error, and start.mjs stops everything. A signal is never
//   a start failure (it came from outside: an operator, the OOM killer).
// - A child is up once it ran `upAfterMs`, or once its `healthUrl` answered (below 500), or
//   when the caller says so (`markUp`); each launch starts again as "starting".
// - A child whose output says why it cannot start (`fatalOutput`: a port in use) stops
//   everything the first time it exits that way: restarting it would fail the same way.
// - A restarted child gets the same arguments and environment (agents keep their id).
// - No child outlives the supervisor: each runs with scripts/stop-with-parent.cjs preloaded,
//   which stops it (SIGTERM to its group) once the supervisor's pid is no longer its parent's.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** Preloaded into every child: it stops when the supervisor is gone. */
const STOP_WITH_PARENT = fileURLToPath(new URL('./stop-with-parent.cjs', import.meta.url));

/** Defaults of {@link Supervisor}'s options (all in ms but the counts). */
export const SUPERVISE_DEFAULTS = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  /** A run at least this long resets the backoff to `initialDelayMs`. */
  healthyAfterMs: 60_000,
  /** Start failures in a row (non-zero exits before up) that stop everything. */
  maxStartFailures: 3,
  /** A child without a health URL counts as up after running this long. */
  upAfterMs: 5_000,
  /** Lines of stderr kept per launch, shown when it exits. */
  tailLines: 8,
});

function alive(child) {
  return child !== null && child.exitCode === null && child.signalCode === null;
}

/** Signals a child's whole process group (it runs detached), else the child alone. */
function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {}
  }
}

function seconds(ms) {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * Runs and restarts child processes. Events: `launch` (proc), `up` (proc), `exit`
 * ({ proc, code, signal, ranMs, requested, startFailure }), `restart` ({ proc, delayMs }),
 * `fatal` ({ proc, reason }).
 */
export class Supervisor extends EventEmitter {
  /**
   * @param {Partial<typeof SUPERVISE_DEFAULTS> & {
   *   out?: (line: string) => void, err?: (line: string) => void,
   *   onFatal?: (proc: object, reason: string) => void,
   *   fatalOutput?: (proc: object, line: string) => string | null }} [opts] `fatalOutput`
   *   reads each output line of a child: a reason returned stops everything when that launch
   *   exits unasked, instead of a restart
   */
  constructor(opts = {}) {
    super();
    this.opts = { ...SUPERVISE_DEFAULTS, ...opts };
    this.out = opts.out ?? ((line) => console.log(line));
    this.err = opts.err ?? ((line) => console.error(line));
    this.onFatal = opts.onFatal ?? (() => {});
    this.fatalOutput = opts.fatalOutput ?? (() => null);
    /** Every child started, in order. */
    this.procs = [];
    /** Set by {@link stopRestarts}: nothing is started again. */
    this.stopping = false;
  }

  /**
   * Starts `node ...args` and keeps it running.
   * @param {string} name shown in front of its output and in messages
   * @param {string[]} args node's arguments (the script first)
   * @param {{ role?: string, cwd?: string, env?: NodeJS.ProcessEnv, upAfterMs?: number,
   *   healthUrl?: string }} [opts] `upAfterMs: 0` with no health URL: up only by markUp
   */
  start(name, args, opts = {}) {
    const proc = {
      name,
      role: opts.role ?? name,
      args,
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      upAfterMs: opts.upAfterMs ?? (opts.healthUrl ? 0 : this.opts.upAfterMs),
      healthUrl: opts.healthUrl ?? null,
      /** The current launch's process (null before the first one). */
      child: null,
      /** Whether the current launch is up. */
      up: false,
      launches: 0,
      startedAt: 0,
      nextDelayMs: this.opts.initialDelayMs,
      /** Non-zero exits before up, in a row. */
      startFailures: 0,
      restartTimer: null,
      stopRequested: false,
      stderrTail: [],
      /** What the current launch said that makes its exit fatal (see `fatalOutput`). */
      fatalReason: null,
    };
    this.procs.push(proc);
    this.#launch(proc);
    return proc;
  }

  /** Marks the current launch of `proc` as up (it answered, or told us it is ready). */
  markUp(proc) {
    if (proc.up || !alive(proc.child)) return;
    proc.up = true;
    proc.startFailures = 0;
    this.emit('up', proc);
  }

  /** No child is started again from now on (shutting down). */
  stopRestarts() {
    this.stopping = true;
    for (const p of this.procs) {
      if (p.restartTimer) clearTimeout(p.restartTimer);
      p.restartTimer = null;
    }
  }

  /**
   * Stops `procs` on request: SIGTERM to their process groups, SIGKILL to those still running
   * after `graceMs`. They are not restarted.
   */
  async stop(procs = this.procs, graceMs = 5_000) {
    for (const p of procs) {
      p.stopRequested = true;
      if (p.restartTimer) clearTimeout(p.restartTimer);
      p.restartTimer = null;
    }
    const live = procs.map((p) => p.child).filter(alive);
    for (const c of live) signalGroup(c, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (live.some(alive) && Date.now() < deadline) await sleep(50);
    const stuck = live.filter(alive);
    for (const c of stuck) {
      this.err(`✗ ${c.pid} did not stop within ${graceMs / 1000} s; killing it`);
      signalGroup(c, 'SIGKILL');
    }
    const killedBy = Date.now() + 2_000;
    while (stuck.some(alive) && Date.now() < killedBy) await sleep(20);
  }

  /** SIGKILL to every child's process group at once (a second Ctrl-C). */
  killAll() {
    this.stopRestarts();
    for (const p of this.procs) {
      p.stopRequested = true;
      if (p.child) signalGroup(p.child, 'SIGKILL');
    }
  }

  #launch(proc) {
    proc.restartTimer = null;
    proc.up = false;
    proc.launches++;
    proc.stderrTail = [];
    proc.fatalReason = null;
    const child = spawn(process.execPath, ['--require', STOP_WITH_PARENT, ...proc.args], {
      env: { ...proc.env, CRAWLER_SUPERVISOR_PID: String(process.pid) },
      cwd: proc.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    proc.child = child;
    proc.startedAt = Date.now();
    const prefix = `[${proc.name}]`.padEnd(16);
    const read = (line) => {
      this.out(`${prefix}${line}`);
      if (proc.child === child) proc.fatalReason ??= this.fatalOutput(proc, line);
    };
    createInterface({ input: child.stdout }).on('line', read);
    createInterface({ input: child.stderr }).on('line', (line) => {
      read(line);
      proc.stderrTail.push(line);
      if (proc.stderrTail.length > this.opts.tailLines) proc.stderrTail.shift();
    });
    const upTimer =
      proc.upAfterMs > 0 ? setTimeout(() => this.markUp(proc), proc.upAfterMs).unref() : null;
    if (proc.healthUrl) void this.#probe(proc, child);
    let handled = false;
    const exited = (code, signal) => {
      if (handled) return;
      handled = true;
      if (upTimer) clearTimeout(upTimer);
      // Whatever it left in its process group goes with it.
      if (child.pid !== undefined) signalGroup(child, 'SIGKILL');
      // Its last lines may still be in the pipes: wait for them (briefly) before reporting.
      const closed = new Promise((resolve) => child.once('close', resolve));
      void Promise.race([closed, sleep(1_000)]).then(() => this.#exited(proc, code, signal));
    };
    child.on('exit', exited);
    // Spawning itself failed (a missing cwd, …): a start failure like any other.
    child.on('error', (e) => {
      if (child.pid !== undefined) return;
      proc.stderrTail.push(String(e?.message ?? e));
      exited(1, null);
    });
    this.emit('launch', proc);
  }

  /** Polls the health URL until it answers, the launch exits, or we stop. */
  async #probe(proc, child) {
    while (alive(child) && proc.child === child && !proc.up && !proc.stopRequested) {
      try {
        const r = await fetch(proc.healthUrl, { signal: AbortSignal.timeout(1_000) });
        if (r.status < 500 && proc.child === child) this.markUp(proc);
      } catch {}
      if (!proc.up) await sleep(250);
    }
  }

  #exited(proc, code, signal) {
    const ranMs = Date.now() - proc.startedAt;
    const requested = proc.stopRequested || this.stopping;
    const startFailure = !requested && !proc.up && signal === null && code !== 0;
    this.emit('exit', { proc, code, signal, ranMs, requested, startFailure });
    if (requested) return;
    const how = signal ? `killed by ${signal}` : `exit code ${code}`;
    const when = proc.up ? `after ${seconds(ranMs)}` : `while starting, after ${seconds(ranMs)}`;
    const tail = proc.stderrTail.length
      ? `; its last stderr lines:\n${proc.stderrTail.map((l) => `    │ ${l}`).join('\n')}`
      : ' (nothing on stderr)';
    if (startFailure) proc.startFailures++;
    if (proc.fatalReason !== null || proc.startFailures >= this.opts.maxStartFailures) {
      const reason =
        proc.fatalReason ??
        `${proc.name} failed ${proc.startFailures} times in a row while starting (${how})`;
      this.err(`✗ ${reason}; stopping everything${tail}`);
      this.emit('fatal', { proc, reason });
      this.onFatal(proc, reason);
      return;
    }
    // Backoff: initial, doubling up to the cap while it keeps failing; initial again after a
    // run long enough to count as healthy.
    const delay = ranMs >= this.opts.healthyAfterMs ? this.opts.initialDelayMs : proc.nextDelayMs;
    proc.nextDelayMs = Math.min(delay * 2, this.opts.maxDelayMs);
    this.err(`✗ ${proc.name} exited ${when} (${how}); restarting it in ${seconds(delay)}${tail}`);
    this.emit('restart', { proc, delayMs: delay });
    proc.restartTimer = setTimeout(() => {
      proc.restartTimer = null;
      if (!this.stopping && !proc.stopRequested) this.#launch(proc);
    }, delay);
  }
}
