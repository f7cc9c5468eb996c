import type { RedisClient } from '@crawler/adapters/redis';
import { telemetryStreamKey, type TelemetryRow } from '@crawler/domain/messages';
import { BufferedWriter } from '../streams/buffered-writer';

/**
 * Buffers fetch telemetry and appends it to the Redis stream in batches (one entry a batch);
 * the coordinator drains the stream into ClickHouse. Retention is bounded but generous, so a
 * coordinator that is down for a while loses nothing.
 */
export class TelemetrySink {
  private readonly writer: BufferedWriter<TelemetryRow>;

  constructor(
    redis: RedisClient,
    prefix: string,
    onError: (err: unknown) => void = () => undefined,
    /** Sees every row as it is emitted (metrics). */
    private readonly observe: (row: TelemetryRow) => void = () => undefined,
    maxBatch = 500,
    flushEveryMs = 200,
  ) {
    const key = telemetryStreamKey(prefix);
    this.writer = new BufferedWriter(
      async (rows) => {
        await redis.xadd(key, 'MAXLEN', '~', '5000000', '*', 'rows', JSON.stringify(rows));
      },
      onError,
      maxBatch,
      flushEveryMs,
    );
  }

  push(row: TelemetryRow): void {
    this.observe(row);
    this.writer.push(row);
  }

  /** Resolves when every row pushed so far is in Redis (or re-queued after a failure). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Resolves once every row pushed so far is in Redis (retried until it is). */
  settled(): Promise<void> {
    return this.writer.settled();
  }
}
