import { START_MARGIN_MS, sleepUnlessStopped } from './host-pacer';

/**
 * Spaces the starts of requests to one host by its gap when several may be in flight at once
 * (a host allowed more than one connection): never faster than the host's limit, however many
 * connections are open. Callers are served in the order they asked. A margin for timer jitter
 * is added (START_MARGIN_MS).
 */
export class StartGate {
  private lastStartMs = -Infinity;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly gapMs: () => number) {}

  /**
   * Resolves at the caller's turn, which starts now; or early, without taking a turn, when
   * `stop` aborts (the caller then starts nothing).
   */
  turn(stop?: AbortSignal): Promise<void> {
    const mine = this.queue.then(async () => {
      for (let wait = this.remainingMs(); wait > 0 && !stop?.aborted; wait = this.remainingMs())
        await sleepUnlessStopped(Math.ceil(wait) + 1, stop);
      if (!stop?.aborted) this.lastStartMs = performance.now();
    });
    this.queue = mine;
    return mine;
  }

  /** Time until the next start may happen (ms, ≥ 0). */
  remainingMs(): number {
    return Math.max(0, this.lastStartMs + this.gapMs() + START_MARGIN_MS - performance.now());
  }
}
