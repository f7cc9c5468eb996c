import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, rmdir, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A small tmpfs of a test's own, for real ENOSPC. */
export interface TestTmpfs {
  dir: string;
  /** Fills what is left of it with a filler file, until the kernel answers ENOSPC. */
  fill(): Promise<void>;
  /** Removes the filler: the space is back. */
  free(): Promise<void>;
  /** Unmounts it and removes the mount point. */
  unmount(): Promise<void>;
}

/**
 * Mounts a tmpfs of `size` (e.g. `2m`) on a fresh folder. Needs root (or CAP_SYS_ADMIN);
 * otherwise it throws saying so, so that a disk-fault test fails rather than passes untested.
 */
export async function mountTestTmpfs(size = '2m'): Promise<TestTmpfs> {
  const dir = await mkdtemp(join(tmpdir(), 'crawler-tmpfs-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  } catch (err) {
    await rmdir(dir).catch(() => undefined);
    const detail = err instanceof Error ? err.message : String(err);
    throw new Error(
      `disk-fault tests need a real tmpfs: "mount -t tmpfs" failed (run them as root or with ` +
        `CAP_SYS_ADMIN): ${detail}`,
    );
  }
  const filler = join(dir, 'filler.bin');
  return {
    dir,
    async fill() {
      const handle = await open(filler, 'a');
      try {
        // Big writes first, then smaller ones for what is left of the last pages.
        for (const size of [64 * 1024, 512, 1]) {
          const chunk = Buffer.alloc(size, 0x5a);
          while (await wroteWhole(handle, chunk));
        }
      } finally {
        await handle.close();
      }
    },
    async free() {
      await rm(filler, { force: true });
    },
    async unmount() {
      // Lazily when busy (a file still open): it goes as soon as the last file closes.
      await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function wroteWhole(handle: FileHandle, chunk: Buffer): Promise<boolean> {
  try {
    return (await handle.write(chunk)).bytesWritten === chunk.length;
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOSPC') return false;
    throw err;
  }
}
