import type { RedisClient } from '@crawler/shared/redis';
import { telemetryStreamKey, type TelemetryRow } from '@crawler/shared/messages';

/**
 * Buffers fetch telemetry and appends it to the Redis stream in batches (one entry a batch);
 * the coordinator drains the stream into ClickHouse. Retention is bounded but generous, so a
 * coordinator that is down for a while loses nothing.
 */
export class TelemetrySink {
  private buffer: TelemetryRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private pending: Promise<void> = Promise.resolve();
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly onError: (err: unknown) => void = () => undefined,
    /** Sees every row as it is emitted (metrics). */
    private readonly observe: (row: TelemetryRow) => void = () => undefined,
    private readonly maxBatch = 500,
    private readonly flushEveryMs = 200,
  ) {
    this.key = telemetryStreamKey(prefix);
  }

  push(row: TelemetryRow): void {
    this.observe(row);
    this.buffer.push(row);
    if (this.buffer.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushEveryMs);
  }

  /**
   * Writes what is buffered; resolves when every earlier batch is in Redis. A batch that fails
   * (Redis briefly away) goes back to the buffer and is retried with the next flush: nothing is
   * dropped and no rejection escapes.
   */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const rows = this.buffer;
    this.buffer = [];
    if (rows.length > 0) {
      this.pending = this.pending.then(async () => {
        try {
          await this.redis.xadd(
            this.key,
            'MAXLEN',
            '~',
            '5000000',
            '*',
            'rows',
            JSON.stringify(rows),
          );
        } catch (err) {
          this.buffer = rows.concat(this.buffer);
          this.onError(err);
          this.timer ??= setTimeout(() => void this.flush(), 1000);
        }
      });
    }
    return this.pending;
  }
}
