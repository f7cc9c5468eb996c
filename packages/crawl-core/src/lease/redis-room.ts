import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';

/** Why {@link RedisRoom} holds leasing back, or null while there is room. */
export type RedisRoomHold =
  | { reason: 'memory'; usedBytes: number; maxBytes: number }
  | { reason: 'telemetry'; backlogBytes: number; maxBytes: number }
  | null;

export interface RedisRoomOptions {
  /** The agents' telemetry stream (its entries are deleted once the coordinator stored them). */
  telemetryKey: string;
  /** Bytes of telemetry not yet stored the stream may hold (TELEMETRY_MAX_BYTES). */
  telemetryMaxBytes: number;
  /** Mean bytes of one telemetry entry as written (TelemetrySink.meanEntryBytes). */
  meanEntryBytes: () => number;
  /** Share of Redis's `maxmemory` at which leasing stops (REDIS_MEMORY_HOLD_RATIO). */
  memoryHoldRatio: number;
  /** How often Redis is asked (ms; default 2,000). */
  everyMs?: number;
  log: Logger;
}

/** Leasing resumes once the measure is this share of where it stopped (no flapping). */
const RESUME_AT = 0.8;

/**
 * Keeps the crawl from filling Redis. Every `everyMs` it reads Redis's memory (INFO memory) and
 * the telemetry backlog (XLEN × the mean entry written); the agent takes no new lease — and
 * leases in hand start no new request — while Redis is at `memoryHoldRatio` of its `maxmemory`
 * or the telemetry the coordinator has not stored yet is at 90% of `telemetryMaxBytes`, so a
 * coordinator down for hours stops the crawl instead of Redis refusing every frontier write
 * (`noeviction`) or the stream losing rows. It says why, once per change, and resumes at 80%.
 * A Redis without `maxmemory` has no memory bound to watch (the operating system's is the limit).
 */
export class RedisRoom {
  private timer: NodeJS.Timeout | null = null;
  private current: RedisRoomHold = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: RedisRoomOptions,
  ) {}

  /** True while leasing is held back. */
  get holdsLeasing(): boolean {
    return this.current !== null;
  }

  /** Why leasing is held back, or null. */
  get hold(): RedisRoomHold {
    return this.current;
  }

  /** Checks at once, then every `everyMs`. */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => {
      this.check().catch((err: unknown) =>
        this.opts.log.warn({ err }, 'Redis room check failed; trying again'),
      );
    }, this.opts.everyMs ?? 2000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads Redis once and updates {@link hold}. */
  async check(): Promise<RedisRoomHold> {
    const [info, entries] = await Promise.all([
      this.redis.info('memory'),
      this.redis.xlen(this.opts.telemetryKey),
    ]);
    const used = infoField(info, 'used_memory');
    const max = infoField(info, 'maxmemory');
    const memoryAt = max > 0 ? max * this.opts.memoryHoldRatio : Infinity;
    const backlog = entries * this.opts.meanEntryBytes();
    const telemetryAt = this.opts.telemetryMaxBytes * 0.9;
    const held = this.current;
    // While held, the hold lasts until its measure is back under 80% of where it stopped.
    const memoryFull = used >= (held?.reason === 'memory' ? memoryAt * RESUME_AT : memoryAt);
    const telemetryFull =
      backlog >= (held?.reason === 'telemetry' ? telemetryAt * RESUME_AT : telemetryAt);
    const next: RedisRoomHold = memoryFull
      ? { reason: 'memory', usedBytes: used, maxBytes: max }
      : telemetryFull
        ? { reason: 'telemetry', backlogBytes: backlog, maxBytes: this.opts.telemetryMaxBytes }
        : null;
    if ((next?.reason ?? null) !== (held?.reason ?? null)) this.say(next);
    this.current = next;
    return next;
  }

  private say(next: RedisRoomHold): void {
    const { log } = this.opts;
    if (next === null) log.info('Redis has room again: leasing resumes');
    else if (next.reason === 'memory')
      log.warn(
        { usedMb: mb(next.usedBytes), maxMb: mb(next.maxBytes), ratio: this.opts.memoryHoldRatio },
        'Redis is nearly full (used_memory near maxmemory): no new leases until it has room — raise maxmemory, or find what grows (dead letters, feed, telemetry)',
      );
    else
      log.warn(
        { backlogMb: mb(next.backlogBytes), maxMb: mb(next.maxBytes) },
        'the coordinator has not stored the telemetry in Redis for a while (TELEMETRY_MAX_BYTES nearly reached): no new leases until it catches up — is a coordinator running?',
      );
  }
}

function infoField(info: string, name: string): number {
  const m = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
  return m ? Number(m[1]) : 0;
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
