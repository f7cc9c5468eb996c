/**
 * Buffers items and writes them in batches: when `maxBatch` are waiting or `flushEveryMs` after
 * the first. A batch that fails (Redis briefly away) goes back to the front of the buffer and is
 * retried a second later: nothing is dropped and no rejection escapes. Batches are written one
 * after another, in order.
 */
export class BufferedWriter<T> {
  private buffer: T[] = [];
  private timer: NodeJS.Timeout | null = null;
  private pending: Promise<void> = Promise.resolve();
  /** Items pushed, and items written, since the start (batches are written in order). */
  private pushed = 0;
  private written = 0;
  private readonly writtenWaiters: Array<{ upTo: number; resolve: () => void }> = [];

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly onError: (err: unknown) => void,
    private readonly maxBatch: number,
    private readonly flushEveryMs: number,
  ) {}

  push(item: T): void {
    this.buffer.push(item);
    this.pushed++;
    if (this.buffer.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushEveryMs);
  }

  /** Items waiting to be written (for back-pressure and metrics). */
  get waiting(): number {
    return this.buffer.length;
  }

  /** Writes what is buffered; resolves when every earlier batch is written (or re-queued). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length > 0) {
      this.pending = this.pending.then(async () => {
        try {
          await this.write(batch);
          this.written += batch.length;
          this.wakeWritten();
        } catch (err) {
          this.buffer = batch.concat(this.buffer);
          this.onError(err);
          this.timer ??= setTimeout(() => void this.flush(), 1000);
        }
      });
    }
    return this.pending;
  }

  /**
   * Resolves once every item pushed before the call is written — after failed batches are
   * retried, unlike flush() — without hurrying the batch. What an agent records as done must be
   * in Redis first.
   */
  settled(): Promise<void> {
    const upTo = this.pushed;
    if (this.written >= upTo) return Promise.resolve();
    // No flush forced: the batch goes at its usual time (maxBatch or flushEveryMs).
    return new Promise<void>((resolve) => this.writtenWaiters.push({ upTo, resolve }));
  }

  private wakeWritten(): void {
    for (let i = this.writtenWaiters.length - 1; i >= 0; i--) {
      const w = this.writtenWaiters[i]!;
      if (w.upTo <= this.written) {
        this.writtenWaiters.splice(i, 1);
        w.resolve();
      }
    }
  }
}
