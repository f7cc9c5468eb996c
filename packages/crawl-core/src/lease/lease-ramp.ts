/**
 * How many leases an agent may hold as it starts: the cap grows by `perSecond` each second from
 * the first lease, up to the agent's maximum. A fresh agent with room for thousands of hosts
 * thus ramps up over a few seconds instead of opening every connection and fetching every
 * robots.txt in the same second, which would stall its event loop and make every host look
 * slow to the pacer. Once ramped up it is no limit at all: leases that end are replaced at
 * once, however many a second (a rate limit on leases would cap a crawl of many short leases).
 */
export class LeaseRamp {
  private startedAt: number | null = null;

  constructor(private readonly perSecond: number) {}

  /** How many more leases may be held now, given `held` and the agent's `max`. */
  room(held: number, max: number): number {
    const now = performance.now();
    this.startedAt ??= now;
    const cap = Math.min(max, Math.floor(this.perSecond * (1 + (now - this.startedAt) / 1000)));
    return Math.max(0, cap - held);
  }
}
