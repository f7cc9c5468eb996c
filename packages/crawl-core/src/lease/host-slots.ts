/** Event-loop utilization over a second past which the agent holds fewer hosts. */
export const OVERLOADED_ELU = 0.9;
/** …under which it may hold more, if it uses what it has. */
const IDLE_ELU = 0.8;
/**
 * Requests waiting for room in the body budget, on average over a second, past which the agent
 * holds fewer hosts: it holds more than its memory serves.
 */
export const OVERLOADED_BUDGET_WAITERS = 1;
/** Shrink factor a second while overloaded. */
const SHRINK = 0.85;
/** Growth factor a second while idle and using its slots. */
const GROW = 1.2;
/** Used slots: held leases at least this share of the target. */
const USED_SHARE = 0.9;

/**
 * How many host leases the agent holds at once: between AGENT_MIN_HOSTS and AGENT_MAX_HOSTS,
 * set once a second by how busy its event loop was and whether requests wait for the body budget
 * (multiplicative up and down, as Crawlee's AutoscaledPool scales on event-loop and memory
 * load). The parse threads are not a signal of their own: what waits for them holds the body
 * budget (AGENT_BODY_BUDGET_BYTES). An agent holding more hosts than its CPU serves
 * does not fetch more: each response waits for the loop, the measured fetch times grow (the
 * pacer then waits 10× that), connections idle out between a host's turns and are opened again
 * (TLS handshakes on the event loop), and bodies wait in memory. Measured on 2 cores, realistic
 * web, 5,000 hosts: holding 5,000 gave 232 pages/s at 1,022 MB RSS, fetch p50 344 ms and 12,747
 * TLS handshakes; holding 300 gave 223 pages/s at 491 MB, p50 27 ms, 4,584 handshakes.
 * Shrinking never cuts a lease: the agent leases no new host until it holds fewer than the
 * target. `min === max` pins it.
 */
export class HostSlots {
  private target: number;

  constructor(
    private readonly min: number,
    private readonly max: number,
    start: number,
  ) {
    this.target = clamp(Math.round(start), min, max);
  }

  /** The target now. */
  get current(): number {
    return this.target;
  }

  /** Leases the agent may add to the `held` it has. */
  room(held: number): number {
    return Math.max(0, this.target - held);
  }

  /**
   * One second's step, from how busy the event loop was over it (0–1), how many requests waited
   * for the body budget on average over it, and the leases held.
   */
  adjust(load: { elu: number; budgetWaiters: number }, held: number): void {
    if (load.elu > OVERLOADED_ELU || load.budgetWaiters >= OVERLOADED_BUDGET_WAITERS)
      this.target = Math.floor(this.target * SHRINK);
    else if (load.elu < IDLE_ELU && load.budgetWaiters === 0 && held >= this.target * USED_SHARE)
      this.target = Math.ceil(this.target * GROW);
    this.target = clamp(this.target, this.min, this.max);
  }
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}
