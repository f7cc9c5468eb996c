/**
 * A token bucket on new leases: at most `perSecond` a second, with a bucket of one second's
 * worth. A fresh agent with room for thousands of hosts thus ramps up over a few seconds
 * instead of opening every connection and fetching every robots.txt at once, which would stall
 * its event loop and make every host look slow to the pacer.
 */
export class LeaseRamp {
  private tokens: number;
  private last = performance.now();

  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
  }

  /** How many of `wanted` new leases may be asked for now. */
  allow(wanted: number): number {
    const now = performance.now();
    this.tokens = Math.min(
      this.perSecond,
      this.tokens + ((now - this.last) / 1000) * this.perSecond,
    );
    this.last = now;
    return Math.max(0, Math.min(wanted, Math.floor(this.tokens)));
  }

  /** Records leases granted. */
  took(n: number): void {
    this.tokens -= n;
  }
}
