import type { RedisClient } from '@crawler/adapters/redis';
import { telemetryStreamKey, type TelemetryRow } from '@crawler/domain/messages';
import { BufferedWriter } from '../streams/buffered-writer';

/**
 * Buffers fetch telemetry and appends it to the Redis stream in batches (one entry a batch);
 * the coordinator drains the stream into ClickHouse and deletes what it stored. Nothing is
 * trimmed unread: the stream is bounded by the agents, which stop leasing while the backlog
 * nears TELEMETRY_MAX_BYTES (lease/redis-room.ts, from {@link meanEntryBytes}).
 */
export class TelemetrySink {
  private readonly writer: BufferedWriter<TelemetryRow>;
  private written = { entries: 0, bytes: 0 };

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
        const json = JSON.stringify(rows);
        await redis.xadd(key, '*', 'rows', json);
        this.written.entries++;
        this.written.bytes += json.length;
      },
      onError,
      maxBatch,
      flushEveryMs,
    );
  }

  /**
   * Mean bytes of an entry written so far, with Redis's own cost (~130 bytes and 10% an entry,
   * as measured for the feed); 16 KiB until the first entry (a batch of ~60 rows).
   */
  meanEntryBytes(): number {
    const { entries, bytes } = this.written;
    return entries === 0 ? 16 * 1024 : (bytes / entries) * 1.1 + 130;
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
