import { CrawlerError } from '@crawler/domain/errors';

/** A login's claim to a turn at the password hash: whose it is, and how many may wait. */
export interface HashTurn {
  /** The client it is for (its address bucket, auth/client-address.ts). */
  client: string;
  /** Most logins that may wait at once (LOGIN_HASH_QUEUE_MAX); beyond it one is refused. */
  maxWaiting: number;
}

/** A login refused because too many wait for a hash already; `retryAfterMs`: a likely wait. */
export class HashQueueFullError extends CrawlerError {
  readonly code = 'HASH_QUEUE_FULL';
  readonly retry = 'backoff';
  constructor(readonly retryAfterMs: number) {
    super(`too many logins wait for a password hash; try again in ${retryAfterMs} ms`);
  }
}

interface Waiter {
  /** null: not a login (accounts, start-up, a rehash after login): never refused. */
  client: string | null;
  start(): void;
  refuse(err: HashQueueFullError): void;
}

/**
 * Password hashes computed at once, and the bounded, fair queue of logins waiting for one.
 * Each hash holds one of libuv's 4 threads (which DNS lookups and file reads share) and
 * 128 × N × r bytes, so only `concurrency` run at once. Logins wait in arrival order, at most
 * `maxWaiting` of them: a flood of logins is answered at once with {@link HashQueueFullError}
 * instead of holding every login, the real ones too, past its client's timeout. When the
 * queue is full, a login from a client that holds at least two places fewer than the client
 * holding the most takes that client's latest place (which is refused instead), so one client
 * (one address, one IPv6 /56) flooding the queue cannot keep everyone else out.
 */
export class HashSlots {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Moving average of a hash's duration, ms (for the Retry-After of a refused login). */
  private averageMs = 0;

  constructor(private readonly concurrency: number) {}

  /** Runs `fn` (one hash) when a slot is free; a login (`turn`) may be refused instead. */
  async run<T>(fn: () => Promise<T>, turn?: HashTurn): Promise<T> {
    await this.acquire(turn);
    const started = performance.now();
    try {
      return await fn();
    } finally {
      const ms = performance.now() - started;
      this.averageMs = this.averageMs === 0 ? ms : 0.8 * this.averageMs + 0.2 * ms;
      // The slot is handed over to the next in line, if any.
      const next = this.waiting.shift();
      if (next) next.start();
      else this.running--;
    }
  }

  /** Logins waiting now. */
  get queued(): number {
    return this.waiting.filter((w) => w.client !== null).length;
  }

  private acquire(turn: HashTurn | undefined): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { client: turn?.client ?? null, start: resolve, refuse: reject };
      if (turn && !this.makeRoom(turn)) return reject(this.refusal());
      this.waiting.push(waiter);
    });
  }

  /** Whether a login of `turn.client` may join the queue, refusing another one to make room. */
  private makeRoom(turn: HashTurn): boolean {
    const logins = this.waiting.filter((w) => w.client !== null);
    if (logins.length < turn.maxWaiting) return true;
    const held = new Map<string, number>();
    for (const w of logins) held.set(w.client!, (held.get(w.client!) ?? 0) + 1);
    let most: string | null = null;
    for (const [client, n] of held) if (most === null || n > held.get(most)!) most = client;
    if (most === null || held.get(most)! < (held.get(turn.client) ?? 0) + 2) return false;
    const index = this.waiting.findLastIndex((w) => w.client === most);
    const [out] = this.waiting.splice(index, 1);
    out!.refuse(this.refusal());
    return true;
  }

  /** The error for a refused login, with the time the queue takes to drain as its wait. */
  private refusal(): HashQueueFullError {
    const rounds = this.waiting.length / this.concurrency + 1;
    return new HashQueueFullError(Math.max(1000, Math.ceil(rounds * this.averageMs)));
  }
}
