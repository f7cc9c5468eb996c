// Types of scripts/supervise.mjs (plain JavaScript: `npm start` runs before anything is built).
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';

export interface SuperviseOptions {
  /** First restart delay, ms (default 1,000). */
  initialDelayMs: number;
  /** Largest restart delay, ms (default 30,000). */
  maxDelayMs: number;
  /** A run at least this long resets the backoff, ms (default 60,000). */
  healthyAfterMs: number;
  /** Non-zero exits before up, in a row, that give up on a child (default 3). */
  maxStartFailures: number;
  /** A child without a health URL is up after running this long, ms (default 5,000). */
  upAfterMs: number;
  /** Stderr lines kept per launch and shown when it exits (default 8). */
  tailLines: number;
}

export const SUPERVISE_DEFAULTS: Readonly<SuperviseOptions>;

export interface Proc {
  name: string;
  role: string;
  args: string[];
  cwd: string | undefined;
  env: NodeJS.ProcessEnv;
  upAfterMs: number;
  healthUrl: string | null;
  child: ChildProcess | null;
  up: boolean;
  launches: number;
  startedAt: number;
  nextDelayMs: number;
  startFailures: number;
  restartTimer: NodeJS.Timeout | null;
  stopRequested: boolean;
  stderrTail: string[];
  /** What the current launch said that makes its exit stop everything, if anything. */
  fatalReason: string | null;
}

export interface ExitInfo {
  proc: Proc;
  code: number | null;
  signal: NodeJS.Signals | null;
  ranMs: number;
  requested: boolean;
  startFailure: boolean;
}

export class Supervisor extends EventEmitter {
  constructor(
    opts?: Partial<SuperviseOptions> & {
      out?: (line: string) => void;
      err?: (line: string) => void;
      onFatal?: (proc: Proc, reason: string) => void;
      /** Reads each output line: a reason makes that launch's unasked exit stop everything. */
      fatalOutput?: (proc: Proc, line: string) => string | null;
    },
  );
  readonly opts: SuperviseOptions;
  readonly procs: Proc[];
  stopping: boolean;
  start(
    name: string,
    args: string[],
    opts?: {
      role?: string;
      cwd?: string;
      env?: NodeJS.ProcessEnv;
      upAfterMs?: number;
      healthUrl?: string;
    },
  ): Proc;
  markUp(proc: Proc): void;
  stopRestarts(): void;
  stop(procs?: Proc[], graceMs?: number): Promise<void>;
  killAll(): void;
}
