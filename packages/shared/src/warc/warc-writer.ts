import { join } from 'node:path';
import { z } from 'zod';
import { buildRevisit } from './build-revisit';
import { buildExchange, buildWarcinfo, type BuiltExchange } from './build-warc-records';
import { SerialQueue } from './serial-queue';
import type { HttpExchange, Revisit, WarcLocation, WarcWriterOptions } from './types';
import { WarcError } from './warc-errors';
import { WarcFileSink, warcFileName } from './warc-file-sink';

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
  software: z.string().min(1),
  operator: z.string().optional(),
  gzipLevel: z.number().int().min(0).max(9).default(3),
  onFileClosed: z
    .custom<NonNullable<WarcWriterOptions['onFileClosed']>>((v) => typeof v === 'function', {
      message: 'expected a function',
    })
    .optional(),
});
type ResolvedOptions = z.output<typeof optionsSchema>;

/**
 * Appends WARC/1.1 records to `${dir}/${prefix}/NNNNN.warc.gz`, one gzip member per record, so
 * any record can be read alone from its offset and length. Each file opens with a warcinfo
 * record; a new file starts once the current one has passed `maxFileBytes`. Calls may overlap:
 * records go into the file in call order, and every record waiting while a write is under way
 * goes into the next one (one `writev` for the batch), so offsets never interleave and a busy
 * agent does not pay a thread-pool round trip per record.
 *
 * Durability: data reaches the OS on every write and the disk (fsync) at rotation and close.
 * Then `onFileClosed` hears of the closed file (to ship it to object storage).
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
  private failure: unknown = null;

  private constructor(
    private readonly opts: ResolvedOptions,
    private sink: WarcFileSink,
  ) {}

  /** Creates the folder and the first file (with its warcinfo). */
  static async open(options: WarcWriterOptions): Promise<WarcWriter> {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new WarcError(
        'WARC_BAD_OPTIONS',
        `WarcWriter option ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const writer = new WarcWriter(
      parsed.data,
      await WarcFileSink.openNext(parsed.data.dir, parsed.data.prefix),
    );
    await writer.writeWarcinfo();
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
    const built = handled(buildRevisit(ex, revisit, this.opts.gzipLevel));
    const { record, key, offset } = await this.place(built, (r) => [r.bytes]);
    return {
      key,
      offset,
      length: record.bytes.byteLength,
      recordId: record.recordId,
      payloadDigest: record.payloadDigest,
    };
  }

  /** Key (relative to `dir`) of the file being written; the next write may rotate first. */
  currentKey(): string {
    return this.sink.key;
  }

  /** Waits for queued writes, then flushes (fsync) and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return this.queue.run(async () => this.writing ?? undefined);
    this.closed = true;
    return this.queue.run(async () => {
      while (this.writing) await this.writing;
      await this.sink.close();
      this.announceClosed(this.sink.key);
    });
  }

  private assertWritable(): void {
    if (this.closed) throw new WarcError('WARC_WRITER_CLOSED', 'WarcWriter is closed');
    if (this.failure) {
      throw new WarcError('WARC_WRITE_FAILED', 'an earlier append failed', { cause: this.failure });
    }
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
      this.writing ??= this.writeBatches().finally(() => {
        this.writing = null;
      });
    });
  }

  /** Appends what is pending, batch after batch, until nothing is; a failure stops the writer. */
  private async writeBatches(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        if (this.failure) {
          throw new WarcError('WARC_WRITE_FAILED', 'an earlier append failed', {
            cause: this.failure,
          });
        }
        if (this.sink.size >= this.opts.maxFileBytes) await this.rotate();
        const key = this.sink.key;
        let offset = await this.sink.append(batch.flatMap((w) => w.buffers));
        for (const w of batch) {
          w.resolve({ key, offset });
          for (const b of w.buffers) offset += b.byteLength;
        }
      } catch (err) {
        this.failure ??= err;
        const failed =
          err instanceof WarcError
            ? err
            : new WarcError('WARC_WRITE_FAILED', 'append failed', { cause: err });
        for (const w of batch) w.reject(failed);
      }
    }
  }

  private async rotate(): Promise<void> {
    const previous = this.sink;
    await previous.close();
    this.announceClosed(previous.key);
    this.sink = await WarcFileSink.openNext(this.opts.dir, this.opts.prefix, previous.seq + 1);
    await this.writeWarcinfo();
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

  private async writeWarcinfo(): Promise<void> {
    const info = await buildWarcinfo(
      warcFileName(this.sink.seq),
      {
        software: this.opts.software,
        ...(this.opts.operator ? { operator: this.opts.operator } : {}),
      },
      this.opts.gzipLevel,
    );
    await this.sink.append([info]);
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
