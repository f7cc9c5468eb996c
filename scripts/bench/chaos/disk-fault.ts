import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A disk that fills up: a small tmpfs mounted as an agent's WARC folder. We run as root, so
 * taking permissions away stops nothing; a full file system (ENOSPC) does. `fill()` writes a
 * filler file until the kernel refuses, `free()` deletes it.
 */
export class FullDisk {
  private readonly filler: string;

  private constructor(readonly dir: string) {
    this.filler = join(dir, '.chaos-filler');
  }

  /** Mounts a tmpfs of `size` (e.g. `64m`) on `dir` (created if missing). Needs root. */
  static async mount(dir: string, size: string): Promise<FullDisk> {
    mkdirSync(dir, { recursive: true });
    try {
      await run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
    } catch (err) {
      throw new Error(
        `the chaos bench's disk fault needs "mount -t tmpfs" (root or CAP_SYS_ADMIN): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    return new FullDisk(dir);
  }

  /** Fills what is left, until ENOSPC. Returns the filler's size in bytes. */
  async fill(): Promise<number> {
    const handle = await open(this.filler, 'a');
    let bytes = 0;
    try {
      // Big writes first, then smaller ones for the last pages.
      for (const size of [1 << 20, 64 * 1024, 512, 1]) {
        const chunk = Buffer.alloc(size, 0x5a);
        for (;;) {
          const n = await wrote(handle, chunk);
          bytes += n;
          if (n < chunk.length) break;
        }
      }
    } finally {
      await handle.close();
    }
    return bytes;
  }

  async free(): Promise<void> {
    await rm(this.filler, { force: true });
  }

  /** Unmounts it (lazily if a file is still open: it goes once the last one closes). */
  async unmount(): Promise<void> {
    await run('umount', [this.dir]).catch(() => run('umount', ['-l', this.dir]));
  }
}

async function wrote(handle: FileHandle, chunk: Buffer): Promise<number> {
  try {
    return (await handle.write(chunk)).bytesWritten;
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOSPC') return 0;
    throw err;
  }
}
