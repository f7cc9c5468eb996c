import { setTimeout as sleep } from 'node:timers/promises';

/** Wake-ups of the sleeps pending on each stop signal: one abort listener per signal. */
const pendingWakeUps = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Sleeps `ms`, or less when `stop` aborts first; never rejects. Thousands of leases sleep on the
 * same signal at once, so each sleep is a plain timer in a set (no listener of its own).
 */
export async function sleepUnlessStopped(ms: number, stop?: AbortSignal): Promise<void> {
  if (!stop) return void (await sleep(ms));
  if (stop.aborted) return;
  let wakeUps = pendingWakeUps.get(stop);
  if (!wakeUps) {
    const set = new Set<() => void>();
    stop.addEventListener('abort', () => {
      for (const wake of set) wake();
    });
    pendingWakeUps.set(stop, set);
    wakeUps = set;
  }
  const pending = wakeUps;
  await new Promise<void>((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      pending.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    pending.add(wake);
  });
}

/**
 * Added to a gap between two request starts (StartGate): the server logs both starts the same
 * way, so only timer jitter needs covering.
 */
export const START_MARGIN_MS = 25;

/**
 * Added to a gap counted from a response's end (HostPacer): 20% of the gap, at least
 * START_MARGIN_MS and at most 100 ms. The agent counts the gap from when it saw the response
 * end; a server under load may log that end later than it sent it, and must still see the full
 * gap. Over TLS a server learns its last write is done only in the write's callback, a turn of
 * its own event loop later: on the realistic bench web (one Node server for 5,000 hosts, 4,000
 * of them HTTPS, on the agent's 2 cores at ~90% busy) HTTPS ends were logged up to 86 ms after
 * the agent had the response, against ≤ 1 ms over plain HTTP. 25 ms let 4 of ~21,000 requests
 * in a 60 s run at a 0.5 s gap start short of it as the server counts it; 100 ms left none. A
 * host an operator allows 50 requests a second (a 20 ms gap) keeps 25 ms, not a fivefold slowdown.
 */
export function safetyMarginMs(gapMs: number): number {
  return Math.min(100, Math.max(START_MARGIN_MS, 0.2 * gapMs));
}

/**
 * Politeness within one host lease: requests go one at a time, and after each the host's next
 * turn is `end + max(configured gap, Crawl-delay, slowFactor × fetch time)`, the adaptive part
 * capped at maxAdaptiveGapMs so one trickling response cannot park a host for hours.
 */
export class HostPacer {
  private lastEndMs = -Infinity;
  private gapMs: number;
  private lastAdaptiveMs = 0;

  constructor(
    private baseGapMs: number,
    private crawlDelayMs = 0,
    private readonly slowFactor = 10,
    private readonly maxAdaptiveGapMs = 30_000,
    /** The server's share of a measured fetch time (the agent's own lag taken off). */
    private readonly serverShare: (measuredMs: number) => number = (ms) => ms,
  ) {
    this.gapMs = Math.max(baseGapMs, crawlDelayMs);
  }

  /** Applies an operator's new gap (ms) from the next request on, shorter or longer. */
  setBaseGap(ms: number): void {
    if (ms === this.baseGapMs) return;
    this.baseGapMs = ms;
    this.gapMs = Math.max(ms, this.crawlDelayMs, this.lastAdaptiveMs);
  }

  /** Applies a robots.txt Crawl-delay (ms) from now on. */
  setCrawlDelay(ms: number): void {
    this.crawlDelayMs = ms;
    this.gapMs = Math.max(this.gapMs, ms);
  }

  /**
   * Waits until the host's next turn (timers may fire early by a fraction of a ms: re-check), or
   * until `stop` aborts: a stopping agent does not sit out a gap it will not use.
   */
  async wait(stop?: AbortSignal): Promise<void> {
    for (let wait = this.remainingMs(); wait > 0 && !stop?.aborted; wait = this.remainingMs())
      await sleepUnlessStopped(Math.ceil(wait) + 1, stop);
  }

  /** Records the end of a request that took `fetchMs`. */
  done(fetchMs: number): void {
    this.lastEndMs = performance.now();
    this.lastAdaptiveMs = Math.min(
      this.maxAdaptiveGapMs,
      this.slowFactor * this.serverShare(fetchMs),
    );
    this.gapMs = Math.max(this.baseGapMs, this.crawlDelayMs, this.lastAdaptiveMs);
  }

  /** Time until the host's next turn (ms, ≥ 0). */
  remainingMs(): number {
    return Math.max(
      0,
      this.lastEndMs + this.gapMs + safetyMarginMs(this.gapMs) - performance.now(),
    );
  }

  /** The host's current gap between requests (ms). */
  currentGapMs(): number {
    return this.gapMs;
  }
}
