import { CrawlerError } from '@crawler/domain/errors';
/** Default of AGENT_BODY_BUDGET_BYTES: decoded response bodies one agent holds at once. */
export const DEFAULT_BODY_BUDGET_BYTES = 64 * 1024 * 1024;

/** Raised when a wait for budget is aborted (the request's deadline passed). */
export class BodyBudgetAbort extends CrawlerError {
  readonly code = 'BODY_BUDGET_ABORTED';
  readonly retry = 'retry';
}

interface Waiter {
  reservation: BodyReservation;
  bytes: number;
  resolve: () => void;
  reject: (err: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
}

/**
 * A byte budget for the decoded response bodies one agent holds: a request opens a reservation
 * once its headers are in (the exact size when it is known — identity encoding with
 * Content-Length — else a first slab) and grows it as decoded bytes arrive; it is released when
 * the body has been archived and parsed. A request that cannot get bytes waits, with its socket
 * paused (TCP pushes back on the server), so the bytes decoded and held at once stay within the
 * budget plus one body:
 * - **No deadlock**: a reservation waits only while others hold bytes, and the oldest open
 *   reservation never waits — it may overdraw, by at most one maximum body — so the oldest
 *   always finishes, releases, and makes the next one the oldest. A body larger than the whole
 *   budget therefore still proceeds (alone, once it is the oldest).
 * - **Order**: growing reservations (bodies being read) are served before new ones (a finished
 *   body frees its bytes soonest); each kind first in, first out.
 * - Reservations grow with the bytes actually decoded, not the body cap: with the default budget
 *   ordinary pages (tens of kB) never wait, and reserving 10 MB per compressed response up front
 *   would admit only a dozen at a time.
 */
export class BodyBudget {
  private used = 0;
  private seq = 0;
  /** Open reservations by id, oldest first. */
  private readonly open = new Map<number, BodyReservation>();
  private readonly growers: Waiter[] = [];
  private readonly admissions: Waiter[] = [];
  /** Waits so far, and the time spent in them (ms). */
  readonly stats = { waits: 0, waitedMs: 0, peakBytes: 0 };

  constructor(
    /** The budget in bytes (AGENT_BODY_BUDGET_BYTES). */
    readonly limitBytes: number,
  ) {}

  /** Bytes reserved right now (may pass the limit by one body: see the class comment). */
  get inUse(): number {
    return this.used;
  }

  /** Open reservations. */
  get holders(): number {
    return this.open.size;
  }

  /**
   * Opens a reservation of `bytes`, waiting while the budget cannot hold it behind the requests
   * already waiting. With nothing reserved it is granted whatever its size.
   * @throws {@link BodyBudgetAbort} when `signal` aborts first.
   */
  async reserve(bytes: number, signal?: AbortSignal): Promise<BodyReservation> {
    const reservation = new BodyReservation(this, ++this.seq);
    if (
      this.open.size === 0 ||
      (this.growers.length === 0 &&
        this.admissions.length === 0 &&
        this.used + bytes <= this.limitBytes)
    ) {
      this.admit(reservation, bytes);
      return reservation;
    }
    await this.wait(this.admissions, reservation, bytes, signal);
    return reservation;
  }

  /** @internal {@link BodyReservation.grow}. */
  growOf(reservation: BodyReservation, bytes: number, signal?: AbortSignal): Promise<void> | null {
    if (this.isOldest(reservation) || (this.growers.length === 0 && this.fits(bytes))) {
      this.take(reservation, bytes);
      return null;
    }
    return this.wait(this.growers, reservation, bytes, signal);
  }

  /** @internal {@link BodyReservation.release}. */
  releaseOf(reservation: BodyReservation): void {
    if (!this.open.delete(reservation.id)) return;
    this.used -= reservation.held;
    for (const queue of [this.growers, this.admissions]) {
      const at = queue.findIndex((w) => w.reservation === reservation);
      if (at >= 0) this.drop(queue, at).reject(new BodyBudgetAbort('reservation released'));
    }
    this.pump();
  }

  private fits(bytes: number): boolean {
    return this.used + bytes <= this.limitBytes;
  }

  private isOldest(reservation: BodyReservation): boolean {
    return this.open.keys().next().value === reservation.id;
  }

  private admit(reservation: BodyReservation, bytes: number): void {
    this.open.set(reservation.id, reservation);
    this.take(reservation, bytes);
  }

  private take(reservation: BodyReservation, bytes: number): void {
    reservation.held += bytes;
    this.used += bytes;
    if (this.used > this.stats.peakBytes) this.stats.peakBytes = this.used;
  }

  private wait(
    queue: Waiter[],
    reservation: BodyReservation,
    bytes: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (signal?.aborted) return Promise.reject(new BodyBudgetAbort('deadline passed'));
    this.stats.waits++;
    const since = performance.now();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        reservation,
        bytes,
        resolve: () => {
          this.stats.waitedMs += performance.now() - since;
          resolve();
        },
        reject,
        signal,
        onAbort: null,
      };
      if (signal) {
        waiter.onAbort = () => {
          const at = queue.indexOf(waiter);
          if (at < 0) return;
          this.drop(queue, at);
          this.stats.waitedMs += performance.now() - since;
          reject(new BodyBudgetAbort('deadline passed'));
          this.pump();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      queue.push(waiter);
    });
  }

  private drop(queue: Waiter[], at: number): Waiter {
    const [waiter] = queue.splice(at, 1) as [Waiter];
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    return waiter;
  }

  /** Grants what now may go: the oldest reservation's growth, then growers, then admissions. */
  private pump(): void {
    const oldest = this.growers.findIndex((w) => this.isOldest(w.reservation));
    if (oldest >= 0) {
      const w = this.drop(this.growers, oldest);
      this.take(w.reservation, w.bytes);
      w.resolve();
    }
    while (this.growers.length > 0 && this.fits(this.growers[0]!.bytes)) {
      const w = this.drop(this.growers, 0);
      this.take(w.reservation, w.bytes);
      w.resolve();
    }
    while (
      this.growers.length === 0 &&
      this.admissions.length > 0 &&
      (this.open.size === 0 || this.fits(this.admissions[0]!.bytes))
    ) {
      const w = this.drop(this.admissions, 0);
      this.admit(w.reservation, w.bytes);
      w.resolve();
    }
  }
}

/** Bytes one request holds in a {@link BodyBudget}. */
export class BodyReservation {
  /** Bytes granted so far. */
  held = 0;

  constructor(
    private readonly budget: BodyBudget,
    /** Admission order: the lowest open id is the oldest reservation. */
    readonly id: number,
  ) {}

  /**
   * Adds `bytes` to the reservation: null when granted at once (the common case, no promise),
   * else a promise that resolves once granted.
   * @throws {@link BodyBudgetAbort} (the promise rejects) when `signal` aborts first.
   */
  grow(bytes: number, signal?: AbortSignal): Promise<void> | null {
    return this.budget.growOf(this, bytes, signal);
  }

  /** Gives every byte back (idempotent). */
  release(): void {
    this.budget.releaseOf(this);
  }
}
