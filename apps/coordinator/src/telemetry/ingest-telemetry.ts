import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { AnalyticsStore, FetchRow } from '@crawler/shared/analytics';
import { telemetryRowSchema, telemetryStreamKey } from '@crawler/shared/messages';
import type { RedisClient } from '@crawler/shared/redis';
import type { Logger } from '@crawler/shared/log';

const GROUP = 'ingest';
const entriesSchema = z.array(z.tuple([z.string(), z.array(z.string())]));
// RESP2 answers [[stream, entries]]; RESP3 (ioredis 6's default) answers a map, flattened to [stream, entries].
const streamReply = z
  .union([
    z.tuple([z.string(), entriesSchema]),
    z.array(z.tuple([z.string(), entriesSchema])).transform((a) => a[0] ?? ['', []]),
  ])
  .nullable();

/**
 * Drains the agents' telemetry stream into ClickHouse in batches, at least once: entries are
 * acknowledged only after their rows are inserted, and a restarted coordinator first re-reads
 * what it had read but not acknowledged. Inserts are idempotent by (url_fp, fetched_at), so a
 * replay does no harm. Rows that fail validation are logged and dropped, never block the rest.
 */
export class TelemetryIngest {
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly key: string;
  ingested = 0;
  rejected = 0;

  constructor(
    /** A connection of its own: XREADGROUP BLOCK would stall a shared one. */
    private readonly redis: RedisClient,
    private readonly analytics: AnalyticsStore,
    prefix: string,
    private readonly consumer: string,
    private readonly log: Logger,
  ) {
    this.key = telemetryStreamKey(prefix);
  }

  async start(): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.key, GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
    }
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Waits until every entry on the stream is ingested (entries are deleted once inserted). */
  async settle(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while ((await this.redis.xlen(this.key)) > 0) {
      if (Date.now() > until)
        throw new Error(`telemetry stream ${this.key} not drained after ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  /** Reads and ingests until the stream has nothing new (when the background loop is stopped). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.step('>', 0);
      total += n;
      if (n === 0) return total;
    }
  }

  private async run(): Promise<void> {
    // First what this consumer read before a crash but never acknowledged, then new entries.
    while (this.running && (await this.step('0', 0)) > 0);
    while (this.running) {
      try {
        await this.step('>', 500);
      } catch (err) {
        this.log.error({ err }, 'telemetry ingest failed; retrying');
        await sleep(1000);
      }
    }
  }

  private async step(from: '>' | '0', blockMs: number): Promise<number> {
    const args: (string | number)[] = ['GROUP', GROUP, this.consumer, 'COUNT', 200];
    if (blockMs > 0) args.push('BLOCK', blockMs);
    const reply = streamReply.parse(
      await this.redis.call('XREADGROUP', ...args, 'STREAMS', this.key, from),
    );
    const entries = (reply?.[1] ?? []) as Array<[string, string[]]>;
    if (entries.length === 0) return 0;
    const rows: FetchRow[] = [];
    for (const [id, fields] of entries) {
      const raw = fields[fields.indexOf('rows') + 1] ?? '[]';
      for (const candidate of safeJsonArray(raw)) {
        const parsed = telemetryRowSchema.safeParse(candidate);
        if (parsed.success)
          rows.push({ ...parsed.data, fetched_at: new Date(parsed.data.fetched_at) });
        else {
          this.rejected++;
          this.log.warn({ id, issues: parsed.error.issues.slice(0, 3) }, 'telemetry row rejected');
        }
      }
    }
    if (rows.length > 0) await this.analytics.insertFetches(rows);
    const ids = entries.map(([id]) => id);
    await this.redis.xack(this.key, GROUP, ...ids);
    await this.redis.xdel(this.key, ...ids);
    this.ingested += rows.length;
    return entries.length;
  }
}

function safeJsonArray(raw: string): unknown[] {
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}
