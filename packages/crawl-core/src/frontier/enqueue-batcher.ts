import type { EnqueueUrl, Frontier } from '@crawler/frontier';
import type { Logger } from '@crawler/adapters/log';
import type { BlockMatch, BlockRuleMatcher } from '@crawler/domain/traps';
import { RetryingBatches } from '../streams/retrying-batches';

/** Options of {@link EnqueueBatcher}. */
export interface EnqueueBatcherOptions {
  /**
   * Operator block rules (blocked hosts and URL patterns): a matching URL is dropped here, never
   * written to the frontier. None: nothing is dropped.
   */
  blockRules?: BlockRuleMatcher;
  /**
   * Called for each URL the block rules dropped, with the rule (`blocked <host>` for a blocked
   * host or domain, `<host> <pattern>` for a URL pattern): the agent counts it.
   */
  onBlocked?: (url: EnqueueUrl, match: BlockMatch) => void;
  /** URLs that make a batch go at once (default 2000). */
  maxBatch?: number;
  /** How long the first URL of a batch waits for others, ms (default 50). */
  delayMs?: number;
}

/** URLs taken to be enqueued together, with the `add` calls waiting for them. */
interface Batch {
  urls: EnqueueUrl[];
  waiters: Array<() => void>;
}

/**
 * Gathers the URLs that pages discover and enqueues them together: one frontier call (one
 * script per shard) for the links of many pages instead of one per page, which is most of the
 * agent's Redis traffic. `add` resolves once its URLs are in the frontier, so a lease completes
 * only after its discoveries are safe; a failed write is retried until it succeeds. URLs the
 * operators' block rules match are dropped before they are queued (counted, logged at debug).
 */
export class EnqueueBatcher extends RetryingBatches<Batch> {
  private urls: EnqueueUrl[] = [];
  private waiters: Array<() => void> = [];
  private readonly maxBatch: number;
  private readonly delayMs: number;

  constructor(
    private readonly frontier: Frontier,
    private readonly onAccepted: (accepted: number) => void,
    private readonly log: Logger,
    private readonly opts: EnqueueBatcherOptions = {},
  ) {
    super();
    this.maxBatch = opts.maxBatch ?? 2000;
    this.delayMs = opts.delayMs ?? 50;
  }

  /** Queues URLs for the frontier (less those the block rules drop); resolves when written. */
  add(all: readonly EnqueueUrl[]): Promise<void> {
    const urls = this.withoutBlocked(all);
    if (urls.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push(resolve));
    for (const u of urls) this.urls.push(u);
    this.schedule(this.urls.length >= this.maxBatch, this.delayMs);
    return done;
  }

  protected take(): Batch | null {
    if (this.urls.length === 0) return null;
    const batch = { urls: this.urls, waiters: this.waiters };
    this.urls = [];
    this.waiters = [];
    return batch;
  }

  protected async writeBatch({ urls, waiters }: Batch): Promise<void> {
    this.onAccepted((await this.frontier.enqueue(urls)).accepted);
    for (const w of waiters) w();
  }

  protected putBack({ urls, waiters }: Batch, err: unknown): void {
    this.log.warn({ err, urls: urls.length }, 'enqueue failed; retrying');
    this.urls = urls.concat(this.urls);
    this.waiters = waiters.concat(this.waiters);
  }

  /** `urls` less those a block rule matches (the same array when none does). */
  private withoutBlocked(urls: readonly EnqueueUrl[]): readonly EnqueueUrl[] {
    const rules = this.opts.blockRules;
    if (!rules || urls.length === 0) return urls;
    let kept: EnqueueUrl[] | null = null;
    for (let i = 0; i < urls.length; i++) {
      const u = urls[i]!;
      const hit = rules.match(u.url, u.host);
      if (hit === null) {
        kept?.push(u);
        continue;
      }
      kept ??= urls.slice(0, i);
      this.opts.onBlocked?.(u, hit);
      if (this.log.isLevelEnabled('debug'))
        this.log.debug({ url: u.url, rule: hit.rule }, 'link dropped by a block rule');
    }
    return kept ?? urls;
  }
}
