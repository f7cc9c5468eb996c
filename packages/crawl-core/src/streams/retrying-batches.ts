/**
 * Batches written one after another, in order, none lost to a failure: the base of
 * BufferedWriter (stream entries) and EnqueueBatcher (discovered URLs). `flush` takes what waits
 * as one batch and chains its write after the earlier ones; a batch whose write fails is put back
 * before what waits by then, and written again a second later. Subclasses say how a batch is
 * taken, written and put back.
 */
export abstract class RetryingBatches<B> {
  private timer: NodeJS.Timeout | null = null;
  private written: Promise<void> = Promise.resolve();

  /** Takes what waits as one batch, leaving nothing waiting; null when nothing waits. */
  protected abstract take(): B | null;
  /** Writes a batch; a rejection puts it back. */
  protected abstract writeBatch(batch: B): Promise<void>;
  /** Puts a batch whose write failed back before what waits now. */
  protected abstract putBack(batch: B, err: unknown): void;

  /** Flushes now when `full`, else `delayMs` after the first call since the last flush. */
  protected schedule(full: boolean, delayMs: number): void {
    if (full) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), delayMs);
  }

  /** Writes what waits now; resolves when every earlier batch is written (or put back). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.take();
    if (batch !== null) {
      this.written = this.written.then(async () => {
        try {
          await this.writeBatch(batch);
        } catch (err) {
          this.putBack(batch, err);
          this.timer ??= setTimeout(() => void this.flush(), 1000);
        }
      });
    }
    return this.written;
  }
}
