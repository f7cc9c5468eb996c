import type { EnqueueUrl, Frontier } from '@crawler/frontier';
import type { Logger } from '@crawler/shared/log';

/**
 * Gathers the URLs that pages discover and enqueues them together: one frontier call (one
 * script per shard) for the links of many pages instead of one per page, which is most of the
 * agent's Redis traffic. `add` resolves once its URLs are in the frontier, so a lease completes
 * only after its discoveries are safe; a failed write is retried until it succeeds.
 */
export class EnqueueBatcher {
  private urls: EnqueueUrl[] = [];
  private waiters: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly frontier: Frontier,
    private readonly onAccepted: (accepted: number) => void,
    private readonly log: Logger,
    private readonly maxBatch = 2000,
    private readonly delayMs = 50,
  ) {}

  /** Queues URLs for the frontier; resolves when they are written. */
  add(urls: readonly EnqueueUrl[]): Promise<void> {
    if (urls.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push(resolve));
    for (const u of urls) this.urls.push(u);
    if (this.urls.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.delayMs);
    return done;
  }

  /** Writes what is queued now; resolves when every earlier batch is written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const urls = this.urls;
    const waiters = this.waiters;
    this.urls = [];
    this.waiters = [];
    if (urls.length > 0) {
      this.writing = this.writing.then(async () => {
        try {
          this.onAccepted((await this.frontier.enqueue(urls)).accepted);
          for (const w of waiters) w();
        } catch (err) {
          this.log.warn({ err, urls: urls.length }, 'enqueue failed; retrying');
          this.urls = urls.concat(this.urls);
          this.waiters = waiters.concat(this.waiters);
          this.timer ??= setTimeout(() => void this.flush(), 1000);
        }
      });
    }
    return this.writing;
  }
}
