import { join } from 'node:path';
import { z } from 'zod';
import { parseOrThrow } from '@crawler/domain/errors';
import { buildRevisit } from './build-revisit';
import {
  buildExchange,
  buildWarcinfo,
  type BuiltExchange,
  type GzipMember,
} from './build-warc-records';
import { SerialQueue } from './serial-queue';
import type {
  HttpExchange,
  Revisit,
  WarcLocation,
  WarcWriterHealth,
  WarcWriterOptions,
} from './types';
import { WarcError } from './warc-errors';
import { WarcFileRoller } from './warc-file-roller';

const GIB = 1024 ** 3;

const optionsSchema = z.strictObject({
  dir: z.string().min(1),
  prefix: z
    .string()
    .min(1)
    .refine(
      (p) =>
        !p.startsWith('/') &&
        p.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
      'relative path without empty, "." or ".." segments',
    ),
  maxFileBytes: z.number().int().positive().default(GIB),
  maxFileAgeMs: z
    .number()
    .int()
    .min(0)
    .default(15 * 60_000),
  retryIntervalMs: z.number().int().positive().default(2000),
  software: z.string().min(1),
  operator: z.string().optional(),
  gzipLevel: z.number().int().min(0).max(9).default(3),
  onFileClosed: z
    .custom<NonNullable<WarcWriterOptions['onFileClosed']>>((v) => typeof v === 'function', {
      message: 'expected a function',
    })
    .optional(),
  onHealthChange: z
    .custom<NonNullable<WarcWriterOptions['onHealthChange']>>((v) => typeof v === 'function', {
      message: 'expected a function',
    })
    .optional(),
});
type ResolvedOptions = z.output<typeof optionsSchema>;

/**
 * Appends WARC/1.1 records to `${dir}/${prefix}/NNNNN.warc.gz`, one gzip member per record, so
 * any record can be read alone from its offset and length. Each file opens with a warcinfo
 * record; a new file starts once the current one has passed `maxFileBytes` or its first record
 * is `maxFileAgeMs` old. The folder carries a lock file while the writer is open
 * (writer-lock.ts), so shippers of other processes leave its files alone. Calls may overlap:
 * records go into the file in call order, and every record waiting while a write is under way
 * goes into the next one (one `writev` for the batch), so offsets never interleave and a busy
 * agent does not pay a thread-pool round trip per record.
 *
 * Durability: data reaches the OS on every write and the disk (fsync) at rotation and close.
 * Then `onFileClosed` hears of the closed file (to ship it to object storage).
 *
 * A failed write (disk full, I/O error) rejects its records with WARC_WRITE_FAILED and never
 * costs an earlier record: the file is cut back to its last whole record, closed and handed to
 * `onFileClosed`. The writer then reports itself unhealthy ({@link health}), fails writes at once
 * (WARC_UNAVAILABLE), and tries to open a new file every `retryIntervalMs` until one opens
 * (warc-file-roller.ts). A location is only ever returned for a record that was written whole.
 */
export class WarcWriter {
  private readonly queue = new SerialQueue();
  /** Records handed to the batch writer, not yet written. */
  private pending: Array<{
    buffers: Uint8Array[];
    resolve: (at: { key: string; offset: number }) => void;
    reject: (err: unknown) => void;
  }> = [];
  /** The batch writer while it runs. */
  private writing: Promise<void> | null = null;
  private closed = false;
  private roller!: WarcFileRoller;

  private constructor(private readonly opts: ResolvedOptions) {}

  /** Creates the folder, locks it (writer-lock.ts) and opens the first file (with its warcinfo). */
  static async open(options: WarcWriterOptions): Promise<WarcWriter> {
    const o = parseOrThrow(
      optionsSchema,
      options,
      (problem) => new WarcError('WARC_BAD_OPTIONS', `WarcWriter option ${problem}`),
    );
    const writer = new WarcWriter(o);
    writer.roller = await WarcFileRoller.open({
      dir: o.dir,
      prefix: o.prefix,
      maxFileBytes: o.maxFileBytes,
      maxFileAgeMs: o.maxFileAgeMs,
      retryIntervalMs: o.retryIntervalMs,
      warcinfo: (fileName) => writer.warcinfo(fileName),
      onClosed: (key) => writer.announceClosed(key),
      onHealthChange: o.onHealthChange,
    });
    return writer;
  }

  /** Writes a response and a request record (WARC-Concurrent-To links them); returns the response's location. */
  async writeExchange(ex: HttpExchange): Promise<WarcLocation> {
    this.assertWritable();
    // Records are built (digests, gzip) as soon as they are handed in; they are appended in
    // call order.
    return this.appendExchange(handled(buildExchange(ex, this.opts.gzipLevel)));
  }

  /**
   * Appends an exchange's records built elsewhere by `buildExchange` (e.g. in a worker thread,
   * off the event loop) with this writer's gzip level; returns the response's location.
   */
  async writeBuiltExchange(built: BuiltExchange): Promise<WarcLocation> {
    this.assertWritable();
    return this.appendExchange(Promise.resolve(built));
  }

  /** The gzip level records are written with (for records built elsewhere). */
  get gzipLevel(): number {
    return this.opts.gzipLevel;
  }

  private async appendExchange(built: Promise<BuiltExchange>): Promise<WarcLocation> {
    const { record, key, offset } = await this.place(built, (b) => [
      b.response.bytes,
      b.request.bytes,
    ]);
    return {
      key,
      offset,
      length: record.response.bytes.byteLength,
      recordId: record.response.recordId,
      payloadDigest: record.response.payloadDigest,
    };
  }

  /**
   * Writes a revisit record: the exchange's HTTP status line and headers, no payload, under a
   * WARC 1.1 revisit profile (see {@link Revisit}):
   *
   * - `{ profile: 'identical-payload-digest', original }`: the body matched an earlier capture;
   *   writes WARC-Payload-Digest and WARC-Refers-To, -Target-URI and -Date from `original`.
   * - `{ profile: 'server-not-modified', original? }`: a conditional GET answered 304; writes
   *   the Refers-To fields that `original` has, WARC-Payload-Digest only if it has a digest.
   *
   * `original.recordId` may be given with or without angle brackets. WARC-Truncated is written
   * when `ex.truncated` is set. The location's payloadDigest is the original's (`''` if unknown).
   * Throws WARC_BAD_REVISIT when the profile needs more than `original` has.
   */
  async writeRevisit(ex: HttpExchange, revisit: Revisit): Promise<WarcLocation> {
    this.assertWritable();
    return this.appendRevisit(handled(buildRevisit(ex, revisit, this.opts.gzipLevel)));
  }

  /**
   * Appends a revisit record built elsewhere by `buildRevisit` (in a worker thread) with this
   * writer's gzip level; returns its location.
   */
  async writeBuiltRevisit(member: GzipMember): Promise<WarcLocation> {
    this.assertWritable();
    return this.appendRevisit(Promise.resolve(member));
  }

  private async appendRevisit(built: Promise<GzipMember>): Promise<WarcLocation> {
    const { record, key, offset } = await this.place(built, (r) => [r.bytes]);
    return {
      key,
      offset,
      length: record.bytes.byteLength,
      recordId: record.recordId,
      payloadDigest: record.payloadDigest,
    };
  }

  /**
   * Key (relative to `dir`) of the file being written (or of the last one, between a rotation
   * and the next write); the next write may rotate first.
   */
  currentKey(): string {
    return this.roller.currentKey();
  }

  /** Whether writes work; when they fail, the error and since when. */
  health(): WarcWriterHealth {
    return this.roller.health();
  }

  /** Waits for queued writes, then flushes (fsync) and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return this.queue.run(async () => this.writing ?? undefined);
    this.closed = true;
    return this.queue.run(async () => {
      while (this.writing) await this.writing;
      await this.roller.close();
    });
  }

  private assertWritable(): void {
    if (this.closed) throw new WarcError('WARC_WRITER_CLOSED', 'WarcWriter is closed');
  }

  /**
   * Puts a record built elsewhere into the file: records are taken in call order (the queue
   * awaits each build in turn) and handed to the batch writer, which appends every record
   * waiting at that moment with one `writev`. Resolves with the record's place.
   */
  private async place<T>(
    built: Promise<T>,
    bytesOf: (record: T) => Uint8Array[],
  ): Promise<{ record: T; key: string; offset: number }> {
    const queued = await this.queue.run(async () => {
      const record = await built;
      // Not awaited here: the next record joins the same batch while this one is written.
      return { record, at: handled(this.submit(bytesOf(record))) };
    });
    const { key, offset } = await queued.at;
    return { record: queued.record, key, offset };
  }

  /** Queues buffers for the next batch; resolves with their file and offset once written. */
  private submit(buffers: Uint8Array[]): Promise<{ key: string; offset: number }> {
    return new Promise((resolve, reject) => {
      this.pending.push({ buffers, resolve, reject });
      this.startBatches();
    });
  }

  private startBatches(): void {
    this.writing ??= this.writeBatches().finally(() => {
      this.writing = null;
      // A record handed in after the loop's last check, before this ran, must not wait forever.
      if (this.pending.length > 0) this.startBatches();
    });
  }

  /**
   * Appends what is pending, batch after batch, until nothing is. A failed batch rejects its
   * records; the roller recovers on a new file and later batches go on.
   */
  private async writeBatches(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        const at = await this.roller.append(batch.flatMap((w) => w.buffers));
        let offset = at.offset;
        for (const w of batch) {
          w.resolve({ key: at.key, offset });
          for (const b of w.buffers) offset += b.byteLength;
        }
      } catch (err) {
        const failed =
          err instanceof WarcError
            ? err
            : new WarcError('WARC_WRITE_FAILED', 'append failed', { cause: err });
        for (const w of batch) w.reject(failed);
      }
    }
  }

  /**
   * Tells `onFileClosed` about a file that is now fsynced and closed. The hook is not awaited
   * (an upload must not stall the crawl) and its failure must not stop writing: a throw or
   * rejection becomes a process warning.
   */
  private announceClosed(key: string): void {
    const hook = this.opts.onFileClosed;
    if (!hook) return;
    const warn = (err: unknown) =>
      process.emitWarning(
        `WarcWriter onFileClosed failed for ${key}: ${err instanceof Error ? err.message : String(err)}`,
        { code: 'WARC_FILE_CLOSED_HOOK_FAILED' },
      );
    try {
      Promise.resolve(hook(key, join(this.opts.dir, key))).catch(warn);
    } catch (err) {
      warn(err);
    }
  }

  /** The warcinfo record that opens the file `fileName`. */
  private warcinfo(fileName: string): Promise<Uint8Array> {
    return buildWarcinfo(
      fileName,
      {
        software: this.opts.software,
        ...(this.opts.operator ? { operator: this.opts.operator } : {}),
      },
      this.opts.gzipLevel,
    );
  }
}

/**
 * Marks a promise as handled now (it is awaited later, in the write queue), so a build that
 * fails before its turn is not reported as an unhandled rejection; the awaiting caller still
 * gets the error.
 */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}
