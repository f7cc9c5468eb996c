import { stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { findLocalWarcFiles } from './find-local-warc-files';
import { LocalObjectStore } from './local-store';
import { keyProblem } from './object-key';
import { isMarkedShipped, markShipped } from './shipped-marker';
import { StorageError } from './storage-errors';
import {
  resolveShipperOptions,
  type ResolvedShipperOptions,
  type WarcShipperOptions,
} from './warc-shipper-options';

/** Which keys to ship: true ships. */
export type ShipFilter = (key: string) => boolean | Promise<boolean>;

interface QueuedFile {
  key: string;
  path: string;
  failures: number;
  /** Epoch ms before which it is not tried again. */
  notBefore: number;
}

/**
 * Uploads closed WARC files to object storage under the same key, one file at a time:
 *
 * - Hook it to the writer (`WarcWriter.open({ …, onFileClosed: shipper.onFileClosed })`) and
 *   every file is queued as soon as it is fsynced and closed, at rotation and at close.
 * - A failed upload (the store's own request retries exhausted) is never dropped: the file
 *   stays local and queued and is tried again after a backoff that doubles per failure (with
 *   jitter, so agents that failed together do not retry together), up to `maxRetryDelayMs`.
 *   Other queued files go ahead meanwhile.
 * - "Shipped" means the store lists the key with the file's size after the upload; then a
 *   `.shipped` marker is written beside the file (and the file removed unless `keepLocal`).
 *   After a crash, {@link shipPending} at start finds every file without a marker.
 * - When the store is a local store on the writer's own folder the object already is the file:
 *   nothing is copied, marked or removed.
 * - On shutdown, {@link close} waits (bounded) for queued uploads; what is left stays local and
 *   unmarked, for the next run's {@link shipPending}.
 */
export class WarcShipper {
  private readonly opts: ResolvedShipperOptions;
  private readonly queue = new Map<string, QueuedFile>();
  private running = false;
  private closing = false;
  private stopped = false;
  private wake: (() => void) | null = null;
  private idleWaiters: Array<() => void> = [];
  private sweep: NodeJS.Timeout | null = null;

  /** Throws STORAGE_BAD_OPTIONS naming the option when the options are invalid. */
  constructor(options: WarcShipperOptions) {
    this.opts = resolveShipperOptions(options);
  }

  /** For `WarcWriterOptions.onFileClosed`: queues the closed file. Never throws. */
  readonly onFileClosed = (key: string, path: string): void => {
    this.ship(key, path);
  };

  /**
   * Queues the file `key` (at `path`, by default `${dir}/${key}`) for upload; a key already
   * queued is not queued twice. After {@link close} this does nothing: the file stays local
   * and unmarked for the next run.
   */
  ship(key: string, path: string = join(this.opts.dir, ...key.split('/'))): void {
    if (this.closing || this.queue.has(key)) return;
    const problem = keyProblem(key);
    if (problem !== null) {
      const error = new StorageError('STORAGE_BAD_KEY', `cannot ship ${key}: ${problem}`);
      this.report(this.opts.onShipFailed, { key, attempts: 1, error, retryInMs: null });
      return;
    }
    this.queue.set(key, { key, path, failures: 0, notBefore: 0 });
    this.kick();
  }

  /**
   * Queues every `*.warc.gz` file under `dir` that has no `.shipped` marker (left by an earlier
   * run that crashed or stopped before its uploads finished), in key order; `filter` narrows
   * them by key (e.g. to files whose writer is gone, when agents share a folder: the WARC
   * module's `filesOfGoneWriters`); it is asked after the files are listed. Resolves once they
   * are queued, with their number; the uploads go on in the background ({@link drain} waits).
   * With `keepLocal` false it also removes files that were shipped but not yet removed.
   *
   * Without a filter, call it before opening the WarcWriter: a file that is still being written
   * must not be queued, and the writer's first file does not exist yet then.
   */
  async shipPending(options: { filter?: ShipFilter } = {}): Promise<number> {
    let queued = 0;
    for (const file of await findLocalWarcFiles(this.opts.dir)) {
      if (options.filter && !(await options.filter(file.key))) continue;
      if (file.shipped) {
        if (!this.opts.keepLocal) await removeIfPresent(file.path);
        continue;
      }
      if (this.queue.has(file.key) || (await this.inPlace(file.key, file.path))) continue;
      this.ship(file.key, file.path);
      queued++;
    }
    return queued;
  }

  /**
   * {@link shipPending} now and again every `everyMs` until {@link close}, with a filter made
   * afresh for each pass, so files that other writers on the folder leave behind later (an
   * agent that crashed meanwhile) are shipped too. Resolves with the first pass's count; a later
   * pass that queues files tells `onQueued`, a failed one `onError`.
   */
  async watchPending(options: {
    everyMs: number;
    filter?: () => ShipFilter;
    onQueued?: (files: number) => void;
    onError?: (err: unknown) => void;
  }): Promise<number> {
    const pass = () => {
      const filter = options.filter?.();
      return this.shipPending(filter ? { filter } : {});
    };
    const first = await pass();
    if (this.closing || this.sweep) return first;
    let running = false;
    this.sweep = setInterval(() => {
      if (running) return;
      running = true;
      pass()
        .then(
          (n) => {
            if (n > 0) this.report(options.onQueued, n);
          },
          (err: unknown) => this.report(options.onError, err),
        )
        .finally(() => (running = false));
    }, options.everyMs);
    this.sweep.unref();
    return first;
  }

  /** Keys queued or being uploaded, in queue order. */
  pending(): string[] {
    return [...this.queue.keys()];
  }

  /**
   * Tries every queued file now (once skipping its backoff) and waits until the queue is empty
   * or `timeoutMs` has passed. Resolves true when everything queued was shipped.
   */
  async drain(timeoutMs = Infinity): Promise<boolean> {
    if (this.queue.size === 0 || this.stopped) return this.queue.size === 0;
    for (const file of this.queue.values()) file.notBefore = 0;
    let timer: NodeJS.Timeout | undefined;
    let waiter = () => {};
    const idle = new Promise<void>((resolve) => {
      waiter = resolve;
      this.idleWaiters.push(waiter);
    });
    const timeout = new Promise<void>((resolve) => {
      if (Number.isFinite(timeoutMs)) timer = setTimeout(resolve, timeoutMs);
    });
    this.kick();
    try {
      await Promise.race([idle, timeout]);
      return this.queue.size === 0;
    } finally {
      clearTimeout(timer);
      this.idleWaiters = this.idleWaiters.filter((w) => w !== waiter);
    }
  }

  /**
   * Stops taking files, drains for at most `timeoutMs`, then stops retrying. Returns the keys
   * not shipped: their files stay local without a marker, and the next run's
   * {@link shipPending} ships them. An upload still in flight may yet finish (and mark its file).
   */
  async close(timeoutMs = Infinity): Promise<{ unshipped: string[] }> {
    this.closing = true;
    if (this.sweep) clearInterval(this.sweep);
    this.sweep = null;
    await this.drain(timeoutMs);
    this.stopped = true;
    this.wake?.();
    return { unshipped: this.pending() };
  }

  private kick(): void {
    this.wake?.();
    if (this.running || this.stopped) return;
    this.running = true;
    void this.work();
  }

  /** The one upload loop: the next due file, or a sleep until one is due. */
  private async work(): Promise<void> {
    try {
      while (!this.stopped && this.queue.size > 0) {
        const next = [...this.queue.values()].reduce((a, b) => (b.notBefore < a.notBefore ? b : a));
        const wait = next.notBefore - Date.now();
        if (wait > 0) await this.sleep(wait);
        else await this.shipOne(next);
      }
    } finally {
      this.running = false;
      if (this.queue.size === 0 || this.stopped) {
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    }
  }

  private async shipOne(file: QueuedFile): Promise<void> {
    try {
      const shipped = await this.upload(file);
      this.queue.delete(file.key);
      if (shipped) {
        this.report(this.opts.onShipped, {
          key: file.key,
          bytes: shipped.bytes,
          attempts: file.failures + 1,
          inPlace: shipped.inPlace,
        });
      }
    } catch (error) {
      file.failures++;
      const gone = error instanceof StorageError && error.code === 'STORAGE_BAD_SOURCE';
      if (gone && !(await exists(file.path))) {
        // Nothing left to ship (removed by hand, or by another shipper that marked it).
        this.queue.delete(file.key);
        if (!(await isMarkedShipped(file.path))) {
          this.report(this.opts.onShipFailed, {
            key: file.key,
            attempts: file.failures,
            error,
            retryInMs: null,
          });
        }
        return;
      }
      const delay = this.backoff(file.failures);
      file.notBefore = Date.now() + delay;
      this.report(this.opts.onShipFailed, {
        key: file.key,
        attempts: file.failures,
        error,
        retryInMs: delay,
      });
    }
  }

  /**
   * Uploads, verifies, marks and (without keepLocal) removes one file. Resolves null when it
   * had been shipped already (marked, e.g. a removal interrupted by a crash).
   */
  private async upload(file: QueuedFile): Promise<{ bytes: number; inPlace: boolean } | null> {
    const { store, keepLocal } = this.opts;
    if (await isMarkedShipped(file.path)) {
      if (!keepLocal) await removeIfPresent(file.path);
      return null;
    }
    const bytes = await sizeOf(file.path);
    if (await this.inPlace(file.key, file.path)) return { bytes, inPlace: true };
    await store.putFile(file.key, file.path);
    await this.verify(file.key, bytes);
    await markShipped(file.path, {
      key: file.key,
      store: store.describe(),
      bytes,
      shippedAt: new Date().toISOString(),
    });
    if (!keepLocal) await removeIfPresent(file.path);
    return { bytes, inPlace: false };
  }

  /** The store is a local store whose object `key` is the file at `path` itself. */
  private async inPlace(key: string, path: string): Promise<boolean> {
    return this.opts.store instanceof LocalObjectStore && this.opts.store.holds(key, path);
  }

  /** Checks that the store lists `key` with `bytes` bytes: what we call shipped. */
  private async verify(key: string, bytes: number): Promise<void> {
    for await (const entry of this.opts.store.list(key)) {
      if (entry.key !== key) continue;
      if (entry.size === bytes) return;
      throw new StorageError(
        'STORAGE_FAILED',
        `${key}: the store holds ${entry.size} bytes after the upload, the file has ${bytes}`,
      );
    }
    throw new StorageError('STORAGE_FAILED', `${key}: not listed by the store after the upload`);
  }

  /** Half the capped exponential delay, plus a random part of the other half. */
  private backoff(failures: number): number {
    const cap = Math.min(
      this.opts.maxRetryDelayMs,
      this.opts.retryBaseDelayMs * 2 ** Math.min(failures - 1, 30),
    );
    return Math.round(cap / 2 + Math.random() * (cap / 2));
  }

  /** Sleeps `ms`, or less when woken (a new file, drain, close). */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Calls an event callback; its failure must not stop the upload loop. */
  private report<E>(callback: ((event: E) => void) | undefined, event: E): void {
    try {
      callback?.(event);
    } catch {
      // The callbacks are for logs and metrics: a broken one loses an event, not a file.
    }
  }
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    throw new StorageError('STORAGE_BAD_SOURCE', `cannot read ${path}`, { cause: err });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function removeIfPresent(path: string): Promise<void> {
  await unlink(path).catch((err: unknown) => {
    if (!(err instanceof Error && 'code' in err && err.code === 'ENOENT')) throw err;
  });
}
