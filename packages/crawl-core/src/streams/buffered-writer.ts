import { RetryingBatches } from './retrying-batches';

/**
 * Buffers items and writes them in batches: when `maxBatch` are waiting or `flushEveryMs` after
 * the first. A batch that fails (Redis briefly away) goes back to the front of the buffer and is
 * retried a second later: nothing is dropped and no rejection escapes. Batches are written one
 * after another, in order.
 */
export class BufferedWriter<T> extends RetryingBatches<{ items: T[]; seqs: number[] }> {
  private buffer: T[] = [];
  /** Sequence number of each buffered item (pushes are numbered 1, 2, …). */
  private bufferSeqs: number[] = [];
  /** First sequence number of each batch taken from the buffer and not yet written. */
  private readonly taken = new Set<number>();
  private pushed = 0;
  private readonly writtenWaiters: Array<{ upTo: number; resolve: () => void }> = [];

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly onError: (err: unknown) => void,
    private readonly maxBatch: number,
    private readonly flushEveryMs: number,
  ) {
    super();
  }

  push(item: T): void {
    this.buffer.push(item);
    this.bufferSeqs.push(++this.pushed);
    this.schedule(this.buffer.length >= this.maxBatch, this.flushEveryMs);
  }

  /** Items waiting to be written (for back-pressure and metrics). */
  get waiting(): number {
    return this.buffer.length;
  }

  protected take(): { items: T[]; seqs: number[] } | null {
    if (this.buffer.length === 0) return null;
    const batch = { items: this.buffer, seqs: this.bufferSeqs };
    this.buffer = [];
    this.bufferSeqs = [];
    this.taken.add(batch.seqs[0]!);
    return batch;
  }

  protected async writeBatch({ items, seqs }: { items: T[]; seqs: number[] }): Promise<void> {
    await this.write(items);
    this.taken.delete(seqs[0]!);
    this.wakeWritten();
  }

  protected putBack({ items, seqs }: { items: T[]; seqs: number[] }, err: unknown): void {
    this.taken.delete(seqs[0]!);
    this.buffer = items.concat(this.buffer);
    this.bufferSeqs = seqs.concat(this.bufferSeqs);
    this.onError(err);
  }

  /**
   * Resolves once every item pushed before the call is written — after failed batches are
   * retried, unlike flush() — without hurrying the batch. What an agent records as done must be
   * in Redis first.
   */
  settled(): Promise<void> {
    const upTo = this.pushed;
    if (this.lowestUnwritten() > upTo) return Promise.resolve();
    // No flush forced: the batch goes at its usual time (maxBatch or flushEveryMs).
    return new Promise<void>((resolve) => this.writtenWaiters.push({ upTo, resolve }));
  }

  /** The lowest sequence number not yet written (buffered, or taken and not written). */
  private lowestUnwritten(): number {
    let low = this.bufferSeqs[0] ?? Infinity;
    for (const first of this.taken) low = Math.min(low, first);
    return low;
  }

  private wakeWritten(): void {
    const low = this.lowestUnwritten();
    for (let i = this.writtenWaiters.length - 1; i >= 0; i--) {
      const w = this.writtenWaiters[i]!;
      if (w.upTo < low) {
        this.writtenWaiters.splice(i, 1);
        w.resolve();
      }
    }
  }
}
