import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/**
 * How late the agent's own event loop runs, over the last second or so. A response is seen
 * that much later than it arrived, so the pacer takes it off a fetch's measured time before
 * applying "10 × fetch time": a busy agent must not slow every host down on its own account.
 */
export class LoopLag {
  private readonly histogram: IntervalHistogram;
  private readonly timer: NodeJS.Timeout;
  private recent = 0;

  constructor(resolutionMs = 10) {
    this.histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    this.histogram.enable();
    this.timer = setInterval(() => {
      // Mean delay beyond the sampling interval, in ms (the histogram counts nanoseconds).
      const mean = this.histogram.mean / 1e6 - resolutionMs;
      this.recent = Number.isFinite(mean) ? Math.max(0, mean) : 0;
      this.histogram.reset();
    }, 1000);
    this.timer.unref();
  }

  /** Mean event-loop lag of the last second, ms. */
  currentMs(): number {
    return this.recent;
  }

  /** The part of a measured fetch time that was the server's (never below zero). */
  serverMs(measuredMs: number): number {
    return Math.max(0, measuredMs - this.recent);
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}
