import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

// The local Redis Cluster's lock and liveness checks (redis-cluster.ts).

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * A lock file holding the owner's pid, so that parallel test files (and parallel runs) start the
 * cluster once. A lock whose owner died is taken over.
 */
export async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = join(dir, 'lock');
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
    }
    const owner = Number(readIfExists(lock));
    if (owner > 0 && !isAlive(owner)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${lock} is held by pid ${owner} for too long`);
    await sleep(50);
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

function readIfExists(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Whether a process of this pid runs (one of another user counts). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err instanceof Error && 'code' in err && err.code === 'EPERM';
  }
}
