import { randomBytes } from 'node:crypto';
import { readFile, readdir, readlink, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

/** How often a writer touches its lock file, ms. */
export const WRITER_HEARTBEAT_MS = 5_000;
/** A lock file untouched this long belongs to a writer that is gone, ms. */
export const WRITER_STALE_MS = 60_000;

/** `writer-<random>.lock`: one per writer, so writers sharing a folder never remove each other's. */
const LOCK_NAME = /^writer-[0-9a-f]+\.lock$/;

/** What a lock file says about its writer (one line of JSON). */
interface LockBody {
  pid: number;
  /** Host name, boot id and pid namespace: where `pid` means this process. */
  machine: string;
  startedAt: string;
}

let machineId: Promise<string | null> | null = null;

/**
 * This process's host, boot and pid namespace (Linux), or null where they are not known. Two
 * processes with the same value see the same pids, so one can tell whether the other is running.
 */
function thisMachine(): Promise<string | null> {
  machineId ??= (async () => {
    try {
      const boot = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
      const pidNs = await readlink('/proc/self/ns/pid');
      return boot && pidNs ? `${hostname()}|${boot}|${pidNs}` : null;
    } catch {
      return null;
    }
  })();
  return machineId;
}

/**
 * Marks a WARC folder as being written by a live process: a file `writer-<random>.lock` beside
 * the WARC files, created before the first of them and touched every {@link WRITER_HEARTBEAT_MS}
 * while the writer runs (recreated if something removed it), removed at close. Shippers of
 * other processes on the same folder leave a folder alone while one of its locks is fresh
 * ({@link writerGone}).
 */
export class WriterLock {
  private readonly timer: NodeJS.Timeout;

  private constructor(
    readonly path: string,
    private readonly body: string,
    heartbeatMs: number,
  ) {
    this.timer = setInterval(() => void this.touch(), heartbeatMs);
    this.timer.unref();
  }

  /** Writes the lock into `folder` (which must exist) and starts its heartbeat. */
  static async acquire(folder: string, heartbeatMs = WRITER_HEARTBEAT_MS): Promise<WriterLock> {
    const body: LockBody = {
      pid: process.pid,
      machine: (await thisMachine()) ?? '',
      startedAt: new Date().toISOString(),
    };
    const path = join(folder, `writer-${randomBytes(6).toString('hex')}.lock`);
    const text = `${JSON.stringify(body)}\n`;
    await writeFile(path, text, { flag: 'wx' });
    return new WriterLock(path, text, heartbeatMs);
  }

  /** Stops the heartbeat and removes the lock: the folder holds only closed files now. */
  async release(): Promise<void> {
    clearInterval(this.timer);
    await unlink(this.path).catch(() => undefined);
  }

  /**
   * Refreshes the lock's time. Needs no free space (a full disk must not make a live writer
   * look gone); a lock removed by hand is written again.
   */
  private async touch(): Promise<void> {
    const now = new Date();
    try {
      await utimes(this.path, now, now);
    } catch (err) {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT')
        await writeFile(this.path, this.body).catch(() => undefined);
    }
  }
}

/**
 * Whether no live writer holds `folder`: it has no lock file, or every lock is stale (untouched
 * for `staleAfterMs`) or names a process of this machine (same host, boot and pid namespace)
 * that is no longer running. A folder of an older writer that kept no lock counts as gone.
 */
export async function writerGone(folder: string, staleAfterMs = WRITER_STALE_MS): Promise<boolean> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((n) => LOCK_NAME.test(n));
  } catch {
    return true;
  }
  const machine = await thisMachine();
  for (const name of names) {
    if (await lockIsLive(join(folder, name), machine, staleAfterMs)) return false;
  }
  return true;
}

async function lockIsLive(
  path: string,
  machine: string | null,
  staleAfterMs: number,
): Promise<boolean> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(path)).mtimeMs;
  } catch {
    return false; // removed meanwhile: its writer closed
  }
  if (Date.now() - mtimeMs >= staleAfterMs) return false;
  const body = await readFile(path, 'utf8').then(parseBody, () => null);
  // Same pid namespace: a pid that is not running settles it at once (a crash, then a restart).
  if (body && machine !== null && body.machine === machine) return pidRunning(body.pid);
  return true;
}

function parseBody(text: string): LockBody | null {
  try {
    const v = JSON.parse(text) as Partial<LockBody>;
    return typeof v.pid === 'number' && typeof v.machine === 'string' ? (v as LockBody) : null;
  } catch {
    return null;
  }
}

function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return !(err instanceof Error && 'code' in err && err.code === 'ESRCH');
  }
}

/**
 * A key filter for `WarcShipper.shipPending`: true for WARC files (keys under `dir`) whose
 * folder no live writer holds ({@link writerGone}). Each folder is judged once per filter, so
 * make one filter per pass; call it after listing the files (a writer locks its folder before
 * creating any file in it, so a file listed first has its live lock visible by then).
 */
export function filesOfGoneWriters(
  dir: string,
  staleAfterMs = WRITER_STALE_MS,
): (key: string) => Promise<boolean> {
  const judged = new Map<string, Promise<boolean>>();
  return (key) => {
    const folder = dirname(join(dir, ...key.split('/')));
    let gone = judged.get(folder);
    if (!gone) {
      gone = writerGone(folder, staleAfterMs);
      judged.set(folder, gone);
    }
    return gone;
  };
}
