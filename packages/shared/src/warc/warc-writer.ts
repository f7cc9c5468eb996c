import { z } from 'zod';
import {
  buildExchange,
  buildRevisit,
  buildWarcinfo,
  type RevisitTarget,
} from './build-warc-records';
import { SerialQueue } from './serial-queue';
import type { HttpExchange, WarcLocation, WarcWriterOptions } from './types';
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
});
type ResolvedOptions = z.output<typeof optionsSchema>;

/**
 * Appends WARC/1.1 records to `${dir}/${prefix}/NNNNN.warc.gz`, one gzip member per record, so
 * any record can be read alone from its offset and length. Each file opens with a warcinfo
 * record; a new file starts once the current one has passed `maxFileBytes`. Calls may overlap:
 * they run one at a time in call order (building a record is synchronous CPU work anyway), so
 * offsets never interleave.
 *
 * Durability: data reaches the OS on every write and the disk (fsync) at rotation and close.
 */
export class WarcWriter {
  private readonly queue = new SerialQueue();
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
    return this.queue.run(async () => {
      const { response, request } = await buildExchange(ex, this.opts.gzipLevel);
      const offset = await this.append([response.bytes, request.bytes]);
      return {
        key: this.sink.key,
        offset,
        length: response.bytes.byteLength,
        recordId: response.recordId,
        payloadDigest: response.payloadDigest,
      };
    });
  }

  /**
   * Writes a headers-only revisit record (profile identical-payload-digest) pointing at an
   * earlier capture through WARC-Refers-To, -Target-URI and -Date. `original.recordId` may be
   * given with or without angle brackets. The location's payloadDigest is the original's.
   */
  async writeRevisit(ex: HttpExchange, original: RevisitTarget): Promise<WarcLocation> {
    this.assertWritable();
    return this.queue.run(async () => {
      const revisit = await buildRevisit(ex, original, this.opts.gzipLevel);
      const offset = await this.append([revisit.bytes]);
      return {
        key: this.sink.key,
        offset,
        length: revisit.bytes.byteLength,
        recordId: revisit.recordId,
        payloadDigest: revisit.payloadDigest,
      };
    });
  }

  /** Key (relative to `dir`) of the file being written; the next write may rotate first. */
  currentKey(): string {
    return this.sink.key;
  }

  /** Waits for queued writes, then flushes (fsync) and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return this.queue.run(async () => undefined);
    this.closed = true;
    return this.queue.run(() => this.sink.close());
  }

  private assertWritable(): void {
    if (this.closed) throw new WarcError('WARC_WRITER_CLOSED', 'WarcWriter is closed');
    if (this.failure) {
      throw new WarcError('WARC_WRITE_FAILED', 'an earlier append failed', { cause: this.failure });
    }
  }

  /** Runs inside the queue: rotates if due, then appends; a failure stops the writer. */
  private async append(buffers: Uint8Array[]): Promise<number> {
    if (this.failure) {
      throw new WarcError('WARC_WRITE_FAILED', 'an earlier append failed', { cause: this.failure });
    }
    try {
      if (this.sink.size >= this.opts.maxFileBytes) await this.rotate();
      return await this.sink.append(buffers);
    } catch (err) {
      this.failure = err;
      throw err instanceof WarcError
        ? err
        : new WarcError('WARC_WRITE_FAILED', 'append failed', { cause: err });
    }
  }

  private async rotate(): Promise<void> {
    const previous = this.sink;
    await previous.close();
    this.sink = await WarcFileSink.openNext(this.opts.dir, this.opts.prefix, previous.seq + 1);
    await this.writeWarcinfo();
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
