import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

// What HttpClient (http-client.ts) reads a body with, one of each per request: the sink of its
// bytes, the overall deadline, the minimum speed, the decoder.

/**
 * A body's bytes as they arrive: straight into one buffer when its length is known up front
 * (identity encoding with Content-Length: undici never delivers more), else as chunks joined at
 * the end — the join briefly holds the body twice, which the known-length case avoids.
 */
export class BodySink {
  private readonly whole: Buffer | null;
  private readonly chunks: Buffer[] = [];
  size = 0;

  constructor(exact: number | null) {
    this.whole = exact !== null && exact > 0 ? sharedBuffer(exact) : null;
  }

  add(chunk: Buffer): void {
    if (this.whole) chunk.copy(this.whole, this.size);
    else this.chunks.push(chunk);
    this.size += chunk.length;
  }

  body(): Buffer {
    if (this.whole)
      return this.size === this.whole.length ? this.whole : this.whole.subarray(0, this.size);
    if (this.size === 0) return Buffer.alloc(0);
    const body = sharedBuffer(this.size);
    let at = 0;
    for (const c of this.chunks) at += c.copy(body, at);
    return body;
  }
}

/**
 * A body's memory, shared: the parse pool's workers read it in place (a SharedArrayBuffer is
 * shared, not copied, when a task is posted), while the agent keeps it to archive the response
 * itself should a worker fail. Structured-cloning an 80 KB body costs ~60 µs and a 10 MB one
 * ~7 ms of the event loop; sharing it, ~5 µs whatever its size.
 */
function sharedBuffer(bytes: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(bytes));
}

/**
 * The overall deadline of one request: a timer that aborts `signal`, and that stops while the
 * agent itself holds the request up (waiting for body budget). One timer, cleared when the body
 * is in, rather than AbortSignal.timeout, whose timer (and signal) would outlive every fetch by
 * the whole deadline — thousands of live timers and signals at a few hundred fetches a second.
 */
export class Deadline {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  private timer: NodeJS.Timeout | null = null;
  private armedAt = 0;
  /** Ended by {@link cut}, not by the clock. */
  wasCut = false;

  constructor(private remainingMs: number) {
    this.arm();
  }

  /** Stops the clock. */
  pause(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.remainingMs -= performance.now() - this.armedAt;
  }

  /** Starts the clock again with the time that was left (at once when none was). */
  resume(): void {
    if (this.timer === null && !this.signal.aborted) this.arm();
  }

  clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Ends the request now, whatever time is left (the agent's drain gave up waiting for it). */
  cut(): void {
    if (this.signal.aborted) return;
    this.wasCut = true;
    this.clear();
    this.controller.abort();
  }

  private arm(): void {
    this.armedAt = performance.now();
    this.timer = setTimeout(() => this.controller.abort(), Math.max(0, this.remainingMs));
    this.timer.unref();
  }
}

/**
 * curl's low-speed limit: over each window, at least `bytesPerS` on average, or the transfer is
 * too slow. Both wire bytes and decoded bytes count, and the faster of the two decides: a
 * trickle is slow in both, while a body that inflates slowly because the agent is busy (its
 * decoder holds the socket back) is not the server's slowness. Checked as chunks arrive; a
 * server that sends nothing at all is ended by the per-chunk body timeout instead.
 */
export class SpeedFloor {
  private windowStart = performance.now();
  private wire = 0;
  private decoded = 0;
  readonly enabled: boolean;

  constructor(
    private readonly bytesPerS: number,
    private readonly windowMs: number,
  ) {
    this.enabled = bytesPerS > 0 && windowMs > 0;
  }

  addWire(bytes: number): void {
    this.wire += bytes;
  }

  addDecoded(bytes: number): void {
    this.decoded += bytes;
  }

  /** Starts a new window (after a pause that was not the server's). */
  restart(): void {
    this.windowStart = performance.now();
    this.wire = 0;
    this.decoded = 0;
  }

  tooSlow(): boolean {
    if (!this.enabled) return false;
    const elapsed = performance.now() - this.windowStart;
    if (elapsed < this.windowMs) return false;
    if ((Math.max(this.wire, this.decoded) * 1000) / elapsed < this.bytesPerS) return true;
    this.windowStart += elapsed;
    this.wire = 0;
    this.decoded = 0;
    return false;
  }
}

/**
 * Decoded output comes in 64 KiB chunks (zlib's default is 16 KiB): a 10 MB body is 160 chunks
 * and event-loop turns rather than 640, which keeps a busy agent's big bodies within their
 * deadline and leaves the allocator fewer small buffers to fragment on.
 */
const DECODED_CHUNK_BYTES = 64 * 1024;

/** The decoder of a Content-Encoding (gzip, deflate, br); null for identity or one unknown. */
export function makeDecoder(encoding: string) {
  const opts = { chunkSize: DECODED_CHUNK_BYTES };
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip(opts);
  if (encoding === 'deflate') return createInflate(opts);
  if (encoding === 'br') return createBrotliDecompress(opts);
  return null;
}
