import { mkdir, open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { WarcError } from './warc-errors';

/**
 * A WARC file, or a sidecar of one (`00003.warc.gz.shipped`): a shipper that removes uploaded
 * files keeps their markers, so a restart never reuses a number whose object is in storage.
 */
const FILE_NAME = /^(\d{5,})\.warc\.gz(?:\.[^.]+)?$/;
const MAX_NAME_ATTEMPTS = 100;

/** File name of sequence number `seq`: `00042.warc.gz`. */
export function warcFileName(seq: number): string {
  return `${String(seq).padStart(5, '0')}.warc.gz`;
}

/** The next free sequence number in a folder: one past the highest file or sidecar, else 0. */
async function nextFreeSeq(folder: string): Promise<number> {
  let highest = -1;
  for (const name of await readdir(folder)) {
    const match = FILE_NAME.exec(name);
    if (match?.[1]) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}

/**
 * One open WARC file being appended to. Created exclusively (`wx`): a restart with the same
 * prefix continues at the next sequence number instead of touching earlier files.
 */
export class WarcFileSink {
  private constructor(
    private readonly handle: FileHandle,
    /** Key relative to the root folder. */
    readonly key: string,
    /** Sequence number of this file. */
    readonly seq: number,
    /** Bytes written so far. */
    public size: number,
  ) {}

  /**
   * Opens the next unused file under `${dir}/${prefix}` (at `minSeq` or later). If another
   * writer takes a name first (same prefix elsewhere), moves on to the following number.
   */
  static async openNext(dir: string, prefix: string, minSeq = 0): Promise<WarcFileSink> {
    const folder = join(dir, prefix);
    await mkdir(folder, { recursive: true });
    let seq = Math.max(minSeq, await nextFreeSeq(folder));
    for (let attempt = 0; ; attempt++, seq++) {
      const name = warcFileName(seq);
      try {
        const handle = await open(join(folder, name), 'wx');
        return new WarcFileSink(handle, `${prefix}/${name}`, seq, 0);
      } catch (err) {
        const taken = err instanceof Error && 'code' in err && err.code === 'EEXIST';
        if (!taken || attempt >= MAX_NAME_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * Appends the buffers in one `writev`; returns the offset of the first one, in bytes. A short
   * write goes on with the rest, so a full disk fails with its own error (ENOSPC); on any
   * failure `size` stays where it was (the file may hold part of the buffers past it).
   */
  async append(buffers: Uint8Array[]): Promise<number> {
    const offset = this.size;
    let total = 0;
    for (const buffer of buffers) total += buffer.byteLength;
    let written = (await this.handle.writev(buffers, offset)).bytesWritten;
    if (written < total) {
      const rest = Buffer.concat(buffers).subarray(written);
      while (written < total) {
        const { bytesWritten } = await this.handle.write(
          rest,
          written - (total - rest.byteLength),
          total - written,
          offset + written,
        );
        if (bytesWritten === 0) {
          throw new WarcError('WARC_WRITE_FAILED', `short write to ${this.key}: no progress`);
        }
        written += bytesWritten;
      }
    }
    this.size += total;
    return offset;
  }

  /** Flushes to disk (fsync) and closes. */
  async close(): Promise<void> {
    try {
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }

  /**
   * Closes a file after a failed append, keeping every record written before it: cuts off what
   * the failed append may have left past the last whole record, then flushes and closes. Never
   * throws (the disk is already failing); resolves false when the file could not be cut or
   * flushed, so it may end in a partial record or miss its last records after a crash.
   */
  async abandon(): Promise<boolean> {
    let clean = true;
    await this.handle.truncate(this.size).catch(() => (clean = false));
    await this.handle.sync().catch(() => (clean = false));
    await this.handle.close().catch(() => undefined);
    return clean;
  }

  /** Closes and removes a file that holds no record (its warcinfo could not be written). */
  async discard(path: string): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
  }
}
