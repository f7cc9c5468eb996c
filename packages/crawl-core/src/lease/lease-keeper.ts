import type { Frontier, HostLease } from '@crawler/frontier';
import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import { CrawlerError } from '@crawler/domain/errors';
import { Cluster } from 'ioredis';

/** What has to be in Redis before a URL is recorded as done: its telemetry row and its page. */
export interface SettledOutputs {
  settled(): Promise<void>;
}

export interface LeaseKeeperOptions {
  /** A request's longest life (FETCH_TOTAL_TIMEOUT_MS): one starts only if it ends in time. */
  requestMs: number;
  /** How often the open leases are renewed (ms). */
  renewEveryMs: number;
  /** How long marks wait to be written together (ms). */
  progressDelayMs?: number;
  log: Logger;
}

interface Held {
  lease: HostLease;
  /**
   * Until when the lease is surely alive (performance.now() clock): the time the lease or its
   * last renewal was asked for, plus its TTL. The frontier's deadline is at least this.
   */
  aliveUntil: number;
  /** The frontier no longer knows the lease as current (reclaimed, released). */
  lost: boolean;
  /**
   * The connection generation in which the frontier last confirmed the lease (granted or
   * renewed it). A lease confirmed before the connection dropped may be gone: Redis may have
   * restarted on an AOF that misses its last second of writes.
   */
  confirmedIn: number;
}

/** Margin kept between a request's latest end and the lease's deadline (ms). */
const DEADLINE_MARGIN_MS = 1000;
/** Pause between two renewals that try to confirm a lease after a reconnection (ms). */
const CONFIRM_RETRY_MS = 100;

/** Progress marks wait for the outputs they depend on, which were not written in time. */
export class OutputsPendingError extends CrawlerError {
  readonly code = 'LEASE_OUTPUTS_PENDING';
  /** The marks are written again a second later. */
  readonly retry = 'retry';
}

/**
 * Keeps the agent's open leases alive and records their progress, so that an agent that dies
 * costs little: its leases, not renewed, come back within their TTL (LEASE_TTL_MS), and the
 * URLs it finished are not fetched again.
 * - **Renewal**: every `renewEveryMs`, one frontier call renews every open lease. A request
 *   starts only while the lease is surely alive for the request's longest life (`mayStart`),
 *   so when renewals fail (Redis away) the agent stops starting requests before the lease can
 *   expire and be leased elsewhere: politeness holds across a reclaim.
 * - **Reconnection**: when the Redis connection drops (`connectionLost`), every open lease is
 *   unconfirmed until a renewal sent after the drop answers for it: Redis may have restarted on
 *   an AOF without its last second of writes, leases granted in that second included, and the
 *   host may already be leased again. `mayStartConfirmed` waits for that renewal.
 * - **Progress**: `done(lease, i)` marks URL i of the batch done. Marks are written in small
 *   batches once the outputs they depend on (telemetry rows, pages) are in Redis — links are
 *   already written before a URL counts as processed.
 * `inFlight` — requests started plus marks not yet written — bounds what a kill can repeat.
 */
export class LeaseKeeper {
  private readonly held = new Map<string, Held>();
  private marks: Array<{ lease: HostLease; index: number }> = [];
  private writingMarks: Promise<void> = Promise.resolve();
  private markTimer: NodeJS.Timeout | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;
  /** Requests started and not ended. */
  private fetching = 0;
  /** Marks not yet written. */
  private unwritten = 0;
  /** Bumped each time the Redis connection drops. */
  private generation = 0;
  /** Marks written; leases renewed or found lost (for the summary and tests). */
  readonly counts = { marksWritten: 0, renewals: 0, lost: 0 };

  constructor(
    private readonly frontier: Pick<Frontier, 'renew' | 'recordProgress'>,
    private readonly outputs: readonly SettledOutputs[],
    private readonly o: LeaseKeeperOptions,
  ) {}

  /** URLs whose outcome a kill now could lose: requests in flight and marks not yet written. */
  get inFlight(): number {
    return this.fetching + this.unwritten;
  }

  /** Starts renewing the open leases. */
  start(): void {
    this.renewTimer ??= setInterval(() => void this.renewAll(), this.o.renewEveryMs);
    this.renewTimer.unref();
  }

  /** Stops renewing and writes the marks that wait. */
  async stop(): Promise<void> {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    await this.renewing;
    await this.flushMarks();
  }

  /** Takes a lease in hand; `askedAt` is when the lease call was sent (performance.now()). */
  hold(lease: HostLease, askedAt: number): void {
    this.held.set(lease.leaseId, {
      lease,
      aliveUntil: askedAt + lease.ttlMs,
      lost: false,
      confirmedIn: this.generation,
    });
  }

  /**
   * The Redis connection dropped: the open leases need confirming again before another request
   * starts (see the class comment). Wired to the client's `close` (a cluster's `-node`).
   */
  connectionLost(): void {
    this.generation++;
  }

  /** Calls `connectionLost` whenever the frontier's connection drops (on a cluster, any node's). */
  watch(redis: RedisClient): void {
    redis.on('close', () => this.connectionLost());
    if (redis instanceof Cluster) redis.on('-node', () => this.connectionLost());
  }

  /** The lease ended (completed, failed): no more renewal. */
  release(lease: HostLease): void {
    this.held.delete(lease.leaseId);
  }

  /**
   * True while a request to the lease's host may start: the lease is current and surely alive
   * until after the request's longest life.
   */
  mayStart(lease: HostLease): boolean {
    const h = this.held.get(lease.leaseId);
    return h !== undefined && h.confirmedIn === this.generation && this.aliveLongEnough(h);
  }

  /**
   * mayStart, after confirming first a lease that the connection dropped under: renews until the
   * frontier answers for it over the new connection (true if current and alive long enough),
   * finds it lost, or it is no longer surely alive long enough (false).
   */
  async mayStartConfirmed(lease: HostLease): Promise<boolean> {
    for (;;) {
      const h = this.held.get(lease.leaseId);
      if (!h || !this.aliveLongEnough(h)) return false;
      if (h.confirmedIn === this.generation) return true;
      await this.renewAll();
      if (this.held.get(lease.leaseId)?.confirmedIn !== this.generation)
        await new Promise((resolve) => setTimeout(resolve, CONFIRM_RETRY_MS));
    }
  }

  private aliveLongEnough(h: Held): boolean {
    return !h.lost && performance.now() + this.o.requestMs + DEADLINE_MARGIN_MS <= h.aliveUntil;
  }

  /** Brackets one request (for `inFlight`). */
  async fetch<T>(work: () => Promise<T>): Promise<T> {
    this.fetching++;
    try {
      return await work();
    } finally {
      this.fetching--;
    }
  }

  /**
   * Ends a lease (`call`: complete or fail; true when the lease was current), retrying while the
   * call fails (Redis away) and the lease may still be current: until its TTL has surely run out,
   * counted from the first failure. False when it was not current; the call's error when it could
   * not be ended in time (the lease then expires and is reclaimed, keeping the progress recorded).
   */
  async end(lease: HostLease, call: () => Promise<boolean>): Promise<boolean> {
    /** Fixed at the first failure: renewals must not keep a failing end going for ever. */
    let giveUpAt: number | undefined;
    for (let wait = 250; ; wait = Math.min(wait * 2, 2000)) {
      try {
        return await call();
      } catch (err) {
        const h = this.held.get(lease.leaseId);
        if (!h || h.lost) throw err;
        giveUpAt ??= h.aliveUntil + lease.ttlMs;
        if (performance.now() > giveUpAt) throw err;
        this.o.log.warn({ err, host: lease.host, retryInMs: wait }, 'lease end failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** Resolves once the outputs pushed so far (telemetry rows, pages) are in Redis. */
  async outputsSettled(): Promise<void> {
    await Promise.all(this.outputs.map((o) => o.settled()));
  }

  /**
   * outputsSettled(), waited for at most the lease's TTL (Redis away for long): true when they
   * settled. The lease ends either way; its URLs' outputs are still retried by their writers.
   */
  outputsSettledFor(lease: HostLease): Promise<boolean> {
    return this.outputsSettledWithin(lease.ttlMs);
  }

  private async outputsSettledWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.outputsSettled().then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** URL `index` of the lease's batch is done: recorded in the frontier soon. */
  done(lease: HostLease, index: number): void {
    this.marks.push({ lease, index });
    this.unwritten++;
    this.markTimer ??= setTimeout(() => void this.flushMarks(), this.o.progressDelayMs ?? 50);
  }

  /**
   * Writes the marks made so far, after the outputs they depend on; resolves when they are
   * written (a failed write is retried: marks are small and losing one only costs a refetch,
   * but a crawl that keeps them is cheaper).
   */
  flushMarks(): Promise<void> {
    if (this.markTimer) clearTimeout(this.markTimer);
    this.markTimer = null;
    const marks = this.marks;
    this.marks = [];
    if (marks.length === 0) return this.writingMarks;
    this.writingMarks = this.writingMarks.then(async () => {
      try {
        if (!(await this.outputsSettledWithin(5000)))
          throw new OutputsPendingError('outputs not yet written');
        // Marks of leases ended here are written too: a lease this agent could not end stays
        // current until reclaimed, and its marks keep those URLs done (the frontier ignores
        // marks of leases no longer current).
        this.counts.marksWritten += await this.frontier.recordProgress(marks);
        this.unwritten -= marks.length;
      } catch (err) {
        this.o.log.warn({ err, marks: marks.length }, 'lease progress not recorded; retrying');
        this.marks = marks.concat(this.marks);
        this.markTimer ??= setTimeout(() => void this.flushMarks(), 1000);
      }
    });
    return this.writingMarks;
  }

  /** Renews every open lease in one frontier call; marks those no longer current as lost. */
  renewAll(): Promise<void> {
    this.renewing ??= this.renewNow().finally(() => (this.renewing = null));
    return this.renewing;
  }

  private async renewNow(): Promise<void> {
    const held = [...this.held.values()];
    if (held.length === 0) return;
    const askedAt = performance.now();
    const generation = this.generation;
    try {
      const deadlines = await this.frontier.renew(held.map((h) => h.lease));
      // An answer that may have come over a connection since dropped confirms nothing.
      const confirms = generation === this.generation;
      held.forEach((h, i) => {
        const d = deadlines[i];
        if (d === null) {
          if (!h.lost) this.counts.lost++;
          h.lost = true;
        } else if (d !== undefined) {
          h.aliveUntil = askedAt + h.lease.ttlMs;
          if (confirms) h.confirmedIn = generation;
        }
        // undefined: its shard did not answer; the lease lives until its known deadline.
      });
      this.counts.renewals++;
    } catch (err) {
      // Not renewed: each lease stays alive until its known deadline, and mayStart stops
      // requests in time. The next round tries again.
      this.o.log.warn({ err, leases: held.length }, 'lease renewal failed');
    }
  }
}
