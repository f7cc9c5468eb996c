import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  machineCpuTicks,
  processCpuMs,
  processMemoryMb,
  threadCpuMs,
  threadCpuSplit,
} from './proc-stats';

/** Float ms on the synthetic web's log clock (the same expression it uses). */
export function logClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Path of a request-target without its query. */
export function targetPath(target: string): string {
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
}

/** New complete lines of a growing file, read incrementally (the web appends its log). */
export class LogTail {
  private fd: number | null = null;
  private offset = 0;
  private rest = '';
  private readonly buf = Buffer.allocUnsafe(1 << 20);

  constructor(private readonly path: string) {}

  read(): string[] {
    if (this.fd === null) {
      if (!existsSync(this.path)) return [];
      this.fd = openSync(this.path, 'r');
    }
    let text = this.rest;
    for (;;) {
      const n = readSync(this.fd, this.buf, 0, this.buf.length, this.offset);
      if (n <= 0) break;
      this.offset += n;
      text += this.buf.toString('utf8', 0, n);
    }
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    return lines;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export interface MeasureOptions {
  /** Name in progress lines. */
  label: string;
  cwd: string;
  /** Arguments of `node` (the child is `process.execPath` itself, so its pid is measured). */
  nodeArgs: string[];
  env: NodeJS.ProcessEnv;
  /** The web's request log: the window opens at the child's first response. */
  logPath: string;
  seconds: number;
  /** Collect the child's stdout lines (otherwise they go to our stderr). */
  collectStdout?: boolean;
  /** How long to wait for the child to exit after SIGTERM before SIGKILL (ms). */
  drainTimeoutMs?: number;
  /** How long the child may take to make its first request (ms). */
  startTimeoutMs?: number;
  /**
   * How many identical children to run side by side (default 1), e.g. several agent processes:
   * CPU and peak RSS are their sums; `envOf(i)` adds each one's own variables (an agent id).
   */
  processes?: number;
  envOf?: (i: number) => NodeJS.ProcessEnv;
  /**
   * A reading taken when the window opens and when it closes (e.g. the agents' event-loop busy
   * seconds from their metrics); `Measured.probeDelta` is the difference.
   */
  probe?: () => Promise<number>;
}

export interface Measured {
  /** The children's pids (one unless `processes` > 1). */
  pids: number[];
  /** The window on the web's log clock: first response seen → SIGTERM. */
  windowStartMs: number;
  windowEndMs: number;
  /** Child spawn → window start (ms): start-up, transpiling, connecting, first lease. */
  startupMs: number;
  /** CPU the child used before the window (ms). */
  startupCpuMs: number;
  /** User + system CPU of the child (all threads) within the window (ms). */
  cpuMs: number;
  /** `cpuMs` by thread: the main thread (event loop), the busiest other, the rest. */
  threadsCpuMs: { mainMs: number; busiestOtherMs: number; restMs: number };
  /** `probe()` at the window's close minus at its opening (null without a probe). */
  probeDelta: number | null;
  /** `cpuMs` of every thread by its id (all children), ms. */
  cpuMsByTid: Map<number, number>;
  /** Share of the whole machine's CPU (all processes, all cores) busy during the window, 0–1. */
  machineBusy: number;
  /** The children's peak RSS (VmHWM, summed) at the end of the window, start-up included (MB). */
  peakRssMb: number;
  /** SIGTERM → the last child's exit (ms). */
  drainMs: number;
  exitCode: number | null;
  stdout: string[];
}

/**
 * Runs one measured child against the synthetic web: waits for its first response in the web's
 * log (so start-up — `tsx` transpiling, module loading, connecting — is outside the window),
 * takes a CPU baseline from /proc, lets it run `seconds`, samples CPU and peak RSS, then
 * SIGTERMs it and waits for it to exit.
 */
export async function measureChild(o: MeasureOptions): Promise<Measured> {
  const spawnedAt = logClockMs();
  const children = Array.from({ length: o.processes ?? 1 }, (_, i) =>
    spawn(process.execPath, o.nodeArgs, {
      cwd: o.cwd,
      env: { ...o.env, ...o.envOf?.(i) },
      stdio: ['ignore', o.collectStdout ? 'pipe' : 2, 'inherit'],
    }),
  );
  const pids = children.map((c) => {
    if (c.pid === undefined) throw new Error(`${o.label}: spawn failed`);
    return c.pid;
  });
  const stdout: string[] = [];
  for (const c of children)
    if (c.stdout) createInterface({ input: c.stdout }).on('line', (l) => stdout.push(l));
  let exitCode: number | null = null;
  let exitedAt = 0;
  const exited = Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) =>
          c.once('exit', (code) => {
            exitCode = Math.max(exitCode ?? 0, code ?? 0);
            exitedAt = logClockMs();
            resolve();
          }),
        ),
    ),
  );
  const alive = (): boolean => children.every((c) => c.exitCode === null && c.signalCode === null);
  const anyAlive = (): boolean =>
    children.some((c) => c.exitCode === null && c.signalCode === null);
  const cpuOf = (): number => pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const threadsOf = (): Map<number, number>[] => pids.map((pid) => threadCpuMs(pid));
  const splitOf = (before: Map<number, number>[], after: Map<number, number>[]) => {
    const total = { mainMs: 0, busiestOtherMs: 0, restMs: 0 };
    pids.forEach((pid, i) => {
      const s = threadCpuSplit(pid, before[i]!, after[i]!);
      total.mainMs += s.mainMs;
      total.busiestOtherMs += s.busiestOtherMs;
      total.restMs += s.restMs;
    });
    return total;
  };
  const memoryOf = () =>
    pids
      .map((pid) => processMemoryMb(pid))
      .reduce((a, b) => ({ rssMb: a.rssMb + b.rssMb, peakRssMb: a.peakRssMb + b.peakRssMb }));
  const tail = new LogTail(o.logPath);
  try {
    // 1. Wait for the first response (robots.txt, usually) in the web's log.
    const deadline = performance.now() + (o.startTimeoutMs ?? 120_000);
    let first: string[] = [];
    while (first.length === 0) {
      if (!alive()) throw new Error(`${o.label} exited (${exitCode}) before its first request`);
      if (performance.now() > deadline) throw new Error(`${o.label} made no request in time`);
      first = tail.read();
      if (first.length === 0) await sleep(10);
    }
    const windowStartMs = logClockMs();
    const cpu0 = cpuOf();
    const threads0 = threadsOf();
    const machine0 = machineCpuTicks();
    const probe0 = o.probe ? await o.probe() : null;

    // 2. The window, with a progress line every 5 s (counting complete log lines is cheap).
    const windowEndAt = windowStartMs + o.seconds * 1000;
    let pages = first.filter((l) => !l.includes('"target":"/robots.txt"')).length;
    let lastPages = pages;
    let lastT = windowStartMs;
    let threadsLast = threads0;
    let machineLast = machine0;
    for (let now = logClockMs(); now < windowEndAt; now = logClockMs()) {
      await sleep(Math.min(5000 - ((now - windowStartMs) % 5000), windowEndAt - now));
      if (!alive()) throw new Error(`${o.label} exited (${exitCode}) during the window`);
      for (const l of tail.read()) if (!l.includes('"target":"/robots.txt"')) pages++;
      const t = logClockMs();
      const cpu = cpuOf() - cpu0;
      const threads = threadsOf();
      const split = splitOf(threadsLast, threads);
      const machine = machineCpuTicks();
      const pct = (ms: number): string => `${((ms * 100) / (t - lastT)).toFixed(0)}%`;
      console.error(
        `[${o.label} ${((t - windowStartMs) / 1000).toFixed(0)}s] ${pages} pages, ` +
          `${(((pages - lastPages) * 1000) / (t - lastT)).toFixed(0)}/s, ` +
          `cpu ${(cpu / Math.max(pages, 1)).toFixed(2)} ms/page ` +
          `(main thread${pids.length > 1 ? 's' : ''} ${pct(split.mainMs)}, busiest other ${pct(split.busiestOtherMs)}, rest ${pct(split.restMs)}, ` +
          `machine ${(((machine.busy - machineLast.busy) * 100) / Math.max(machine.total - machineLast.total, 1)).toFixed(0)}% busy), ` +
          `rss ${memoryOf().rssMb.toFixed(0)} MB`,
      );
      lastPages = pages;
      lastT = t;
      threadsLast = threads;
      machineLast = machine;
    }

    // 3. Close the window: sample, then SIGTERM and wait for the drain.
    const cpuMs = cpuOf() - cpu0;
    const threads1 = threadsOf();
    const machine1 = machineCpuTicks();
    const { peakRssMb } = memoryOf();
    const probe1 = o.probe ? await o.probe() : null;
    const windowEndMs = logClockMs();
    for (const c of children) c.kill('SIGTERM');
    const timeout = sleep(o.drainTimeoutMs ?? 60_000).then(() => 'timeout' as const);
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      console.error(`${o.label} did not exit after SIGTERM; killing it`);
      for (const c of children) c.kill('SIGKILL');
      await exited;
    }
    return {
      pids,
      windowStartMs,
      windowEndMs,
      startupMs: windowStartMs - spawnedAt,
      startupCpuMs: cpu0,
      threadsCpuMs: splitOf(threads0, threads1),
      probeDelta: probe0 !== null && probe1 !== null ? probe1 - probe0 : null,
      cpuMsByTid: new Map(
        threads1.flatMap((after, i) =>
          [...after].map(([tid, ms]) => [tid, ms - (threads0[i]!.get(tid) ?? 0)] as const),
        ),
      ),
      machineBusy: (machine1.busy - machine0.busy) / Math.max(machine1.total - machine0.total, 1),
      cpuMs,
      peakRssMb,
      drainMs: exitedAt - windowEndMs,
      exitCode,
      stdout,
    };
  } finally {
    tail.close();
    if (anyAlive()) {
      for (const c of children) c.kill('SIGKILL');
      await exited;
    }
  }
}
