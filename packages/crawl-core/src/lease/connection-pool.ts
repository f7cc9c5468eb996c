import type { HostLease } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { HostPacer } from './host-pacer';
import { StartGate } from './start-gate';

/** The slow-host rule: a connection's next request waits this many times its last fetch time… */
const SLOW_FACTOR = 10;
/** …capped, so one trickling response cannot park a host for hours (ms). */
const MAX_ADAPTIVE_GAP_MS = 30_000;

/**
 * A host's only connection: it keeps the host's whole pace, its next request waiting
 * max(gap, Crawl-delay, 10 × its last fetch time) after the last response ended — the gap as the
 * server (and the frontier, between leases) counts it. An operator's new gap applies from the
 * next wait on, even in the middle of a lease.
 */
class SoleConnection extends HostPacer {
  constructor(
    baseGapMs: number,
    private readonly liveGapMs: () => number,
    serverShare: (measuredMs: number) => number,
  ) {
    super(baseGapMs, 0, SLOW_FACTOR, MAX_ADAPTIVE_GAP_MS, serverShare);
  }

  override async wait(stop?: AbortSignal): Promise<void> {
    this.setBaseGap(this.liveGapMs());
    await super.wait(stop);
  }
}

/**
 * One of a host's several connections: it keeps the slow-host rule for itself (its next request
 * waits 10 × its last fetch time), then takes the host's turn at the start gate, which spaces
 * every start by the host's gap however many connections are open.
 */
class SharedConnection extends HostPacer {
  constructor(
    private readonly gate: StartGate,
    serverShare: (measuredMs: number) => number,
  ) {
    super(0, 0, SLOW_FACTOR, MAX_ADAPTIVE_GAP_MS, serverShare);
  }

  override async wait(stop?: AbortSignal): Promise<void> {
    await super.wait(stop);
    await this.gate.turn(stop);
  }
}

/**
 * The connections one lease's requests go over: one by default, up to the host's
 * `max_connections` where an operator allowed more (never more than the lease has URLs). Each is
 * a HostPacer whose `wait()` is its turn, so at most `size` requests are in flight and
 * politeness holds per host and per connection:
 * - one connection: the host's gap counts from the end of its last response (SoleConnection);
 * - several: starts are spaced by the host's gap (rate limit, Crawl-delay) through a StartGate,
 *   and each connection keeps the 10× rule for itself (SharedConnection). Before they open, the
 *   host's first requests (robots.txt, the soft-404 probe) go one at a time over `lead`, paced
 *   like a sole connection.
 */
export class ConnectionPool {
  /** The host's one connection, or the one its first requests go over before the others open. */
  readonly lead: HostPacer;
  readonly connections: readonly HostPacer[];
  private readonly gate: StartGate | null;
  private crawlDelayMs = 0;
  /** Several connections: they have taken over from the lead. */
  private opened = false;

  constructor(
    private readonly r: AgentResources,
    private readonly lease: HostLease,
    size: number,
  ) {
    const serverShare = (ms: number) => r.lag.serverMs(ms);
    this.lead = new SoleConnection(lease.gapMs, () => this.policyGapMs(), serverShare);
    if (size > 1) {
      const gate = new StartGate(() => this.gapMs());
      this.gate = gate;
      this.connections = Array.from(
        { length: size },
        () => new SharedConnection(gate, serverShare),
      );
    } else {
      this.gate = null;
      this.connections = [this.lead];
    }
  }

  /** The lead's first requests are done: the connections take over, and their pace is the host's. */
  open(): void {
    this.opened = true;
  }

  /** Requests may open a connection beside the others (the HTTP client's multi-connection pool). */
  get multiConnection(): boolean {
    return this.gate !== null;
  }

  /** Applies an origin's robots.txt Crawl-delay (ms): the longest of the lease's origins holds. */
  setCrawlDelay(ms: number): void {
    this.crawlDelayMs = Math.max(this.crawlDelayMs, ms);
    this.lead.setCrawlDelay(this.crawlDelayMs);
  }

  /** At least how long until `conn`'s next turn (ms, ≥ 0): its own pace and the host's. */
  untilTurnMs(conn: HostPacer): number {
    return Math.max(conn.remainingMs(), this.gate?.remainingMs() ?? 0);
  }

  /** Time until the host's next turn after the lease (ms, ≥ 0): the frontier waits it. */
  remainingMs(): number {
    return Math.max(
      this.lead.remainingMs(),
      this.gate?.remainingMs() ?? 0,
      ...this.connections.map((c) => c.remainingMs()),
    );
  }

  /** The host's pace after the lease (ms between requests), for the frontier to keep. */
  paceMs(): number {
    if (!this.gate || !this.opened) return this.lead.currentGapMs();
    const slowest = Math.max(...this.connections.map((c) => c.currentGapMs()));
    return Math.max(this.gapMs(), slowest / this.connections.length);
  }

  /** The operator's live gap (pushed to the agent, so reading it costs nothing), or the lease's. */
  private policyGapMs(): number {
    return this.r.policies.get(this.lease.host)?.gapMs ?? this.lease.gapMs;
  }

  /** The host's gap between request starts: its rate limit, at least its Crawl-delay. */
  private gapMs(): number {
    return Math.max(this.policyGapMs(), this.crawlDelayMs);
  }
}
