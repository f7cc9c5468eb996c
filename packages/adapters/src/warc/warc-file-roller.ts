import { mkdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { SerialQueue } from './serial-queue';
import type { WarcWriterHealth } from './types';
import { WarcError } from './warc-errors';
import { WarcFileSink, warcFileName } from './warc-file-sink';
import { WriterLock } from './writer-lock';

/**
 * Free space a writer recovering from a failure waits for: 64 MiB, or 5 % of a smaller file
 * system.
 */
export const RECOVERY_FREE_BYTES = 64 * 1024 * 1024;
const RECOVERY_FREE_SHARE = 0.05;

export interface RollerOptions {
  dir: string;
  prefix: string;
  maxFileBytes: number;
  /** 0: no rotation by age. */
  maxFileAgeMs: number;
  retryIntervalMs: number;
  /** The warcinfo record opening the file of that name. */
  warcinfo: (fileName: string) => Promise<Uint8Array>;
  /** A file is closed (fsynced when the disk allowed it): ship it. Must not throw. */
  onClosed: (key: string) => void;
  onHealthChange?: ((health: WarcWriterHealth) => void) | undefined;
}

/**
 * The WARC file being written, and the files after it. Every operation on the file — appends,
 * rotation by size or age, recovery — runs one at a time (its own queue).
 *
 * - A file is closed once it has passed `maxFileBytes` (at the next append) or once its first
 *   record is `maxFileAgeMs` old (by a timer, so a quiet writer's records still reach storage);
 *   the next append opens the next file.
 * - A failed append (ENOSPC, EIO…) abandons the file: it is cut back to its last whole record,
 *   closed and handed on like any closed file (the records before the failure are good, and
 *   telemetry points at them). The writer is then unhealthy: appends fail at once, and every
 *   `retryIntervalMs` it tries to open a new file (the next append tries too, once the interval
 *   has passed), once the file system has room again (64 MiB free, or 5 % of a smaller one).
 *   The first file that opens with its warcinfo makes it healthy again.
 */
export class WarcFileRoller {
  private readonly ops = new SerialQueue();
  private sink: WarcFileSink | null = null;
  private nextSeq = 0;
  private lastKey = '';
  private fault: { error: unknown; since: Date } | null = null;
  private lastAttemptMs = 0;
  private ageTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly o: RollerOptions,
    private readonly lock: WriterLock,
  ) {}

  /** Creates the folder, locks it, then opens the first file; throws when that fails. */
  static async open(o: RollerOptions): Promise<WarcFileRoller> {
    const folder = join(o.dir, o.prefix);
    await mkdir(folder, { recursive: true });
    const roller = new WarcFileRoller(o, await WriterLock.acquire(folder));
    try {
      await roller.openFile();
    } catch (err) {
      await roller.lock.release();
      throw err;
    }
    return roller;
  }

  /** Appends the buffers to the current file (opening one first if needed); where they went. */
  append(buffers: Uint8Array[]): Promise<{ key: string; offset: number }> {
    return this.ops.run(() => this.appendNow(buffers));
  }

  health(): WarcWriterHealth {
    if (!this.fault) return { ok: true };
    const e = this.fault.error;
    return {
      ok: false,
      code: errorCode(e),
      message: e instanceof Error ? e.message : String(e),
      since: this.fault.since,
    };
  }

  /** Key of the file being written, or of the last one when none is open. */
  currentKey(): string {
    return this.sink?.key ?? this.lastKey;
  }

  /** Closes the current file (fsync) and releases the folder's lock. Throws if fsync fails. */
  close(): Promise<void> {
    return this.ops.run(async () => {
      if (this.closed) return;
      this.closed = true;
      this.stopTimers();
      try {
        const sink = this.sink;
        this.sink = null;
        if (sink) await this.closeFile(sink);
      } finally {
        await this.lock.release();
      }
    });
  }

  private async appendNow(buffers: Uint8Array[]): Promise<{ key: string; offset: number }> {
    if (this.closed) throw new WarcError('WARC_WRITER_CLOSED', 'WarcWriter is closed');
    if (this.sink && this.sink.size >= this.o.maxFileBytes) {
      const full = this.sink;
      this.sink = null;
      await this.closeFile(full).catch((err: unknown) => this.setFault(err));
    }
    if (!this.sink) {
      if (this.fault && Date.now() - this.lastAttemptMs < this.o.retryIntervalMs) {
        throw new WarcError('WARC_UNAVAILABLE', 'WARC storage is failing; retrying', {
          cause: this.fault.error,
        });
      }
      await this.reopen();
    }
    const sink = this.sink!;
    try {
      const offset = await sink.append(buffers);
      this.armAgeTimer(sink);
      return { key: sink.key, offset };
    } catch (err) {
      this.sink = null;
      this.clearAgeTimer();
      await sink.abandon();
      this.o.onClosed(sink.key);
      this.setFault(err);
      throw new WarcError('WARC_WRITE_FAILED', `append to ${sink.key} failed: ${describe(err)}`, {
        cause: err,
      });
    }
  }

  /** Opens the next file with its warcinfo; a file whose warcinfo failed is removed. */
  private async openFile(): Promise<void> {
    this.lastAttemptMs = Date.now();
    const sink = await WarcFileSink.openNext(this.o.dir, this.o.prefix, this.nextSeq);
    try {
      await sink.append([await this.o.warcinfo(warcFileName(sink.seq))]);
    } catch (err) {
      await sink.discard(join(this.o.dir, sink.key));
      throw err;
    }
    this.sink = sink;
    this.nextSeq = sink.seq + 1;
    this.lastKey = sink.key;
  }

  /**
   * {@link openFile} after a failure or a rotation: healthy on success, faulted on failure. After
   * a failure it also wants room to work ({@link RECOVERY_FREE_BYTES}): a disk that only got a
   * few pages back (the broken file cut to its last record) would fail the next write again,
   * and each round would fail URLs for nothing.
   */
  private async reopen(): Promise<void> {
    try {
      if (this.fault) await this.checkHeadroom();
      await this.openFile();
    } catch (err) {
      this.setFault(err);
      throw new WarcError('WARC_WRITE_FAILED', `cannot open a new WARC file: ${describe(err)}`, {
        cause: err,
      });
    }
    this.clearFault();
  }

  /** Throws ENOSPC while the file system has less than the recovery headroom free. */
  private async checkHeadroom(): Promise<void> {
    this.lastAttemptMs = Date.now();
    const folder = join(this.o.dir, this.o.prefix);
    let fs;
    try {
      fs = await statfs(folder);
    } catch {
      return; // not known here: the write itself will tell
    }
    const free = fs.bavail * fs.bsize;
    const want = Math.min(
      RECOVERY_FREE_BYTES,
      Math.ceil(fs.blocks * fs.bsize * RECOVERY_FREE_SHARE),
    );
    if (free >= want) return;
    const err = new Error(`${free} bytes free under ${folder}; writing resumes at ${want}`);
    throw Object.assign(err, { code: 'ENOSPC' });
  }

  /** Fsyncs, closes and hands on a file; the close is reported even when fsync fails. */
  private async closeFile(sink: WarcFileSink): Promise<void> {
    this.clearAgeTimer();
    try {
      await sink.close();
    } finally {
      this.o.onClosed(sink.key);
    }
  }

  /** After a file's first record: close it once that record is `maxFileAgeMs` old. */
  private armAgeTimer(sink: WarcFileSink): void {
    if (this.ageTimer || this.o.maxFileAgeMs <= 0) return;
    this.ageTimer = setTimeout(() => {
      this.ageTimer = null;
      this.ops
        .run(async () => {
          if (this.sink !== sink || this.closed) return;
          this.sink = null;
          await this.closeFile(sink);
        })
        .catch((err: unknown) => this.setFault(err));
    }, this.o.maxFileAgeMs);
    this.ageTimer.unref();
  }

  private clearAgeTimer(): void {
    if (this.ageTimer) clearTimeout(this.ageTimer);
    this.ageTimer = null;
  }

  private setFault(error: unknown): void {
    if (this.closed) return;
    const first = this.fault === null;
    this.fault = { error, since: this.fault?.since ?? new Date() };
    if (first) this.report();
    if (this.retryTimer) return;
    // The agent leases nothing while unhealthy, so no append would come to try again.
    this.retryTimer = setInterval(() => {
      this.ops
        .run(async () => {
          if (this.sink || !this.fault || this.closed) return;
          await this.reopen();
        })
        .catch(() => undefined); // still failing: the fault holds the latest error
    }, this.o.retryIntervalMs);
    this.retryTimer.unref();
  }

  private clearFault(): void {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
    if (this.fault === null) return;
    this.fault = null;
    this.report();
  }

  private stopTimers(): void {
    this.clearAgeTimer();
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
  }

  private report(): void {
    try {
      this.o.onHealthChange?.(this.health());
    } catch {
      // A logging callback must not break writing.
    }
  }
}

/** The errno code of a file system error (`ENOSPC`), the WarcError code, or `EUNKNOWN`. */
function errorCode(err: unknown): string {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') return err.code;
  return 'EUNKNOWN';
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
