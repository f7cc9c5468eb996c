import { Gauge, type Registry } from 'prom-client';
import type { RedisClient } from '@crawler/adapters/redis';
import { sharedRead } from './shared-read';

/** A stream the coordinator watches, with the labels it is reported under. */
export interface WatchedStream {
  key: string;
  /** `telemetry`, `pages.parsed`. */
  stream: string;
  /** The feed's partition number; `0` for an unpartitioned stream. */
  partition: string;
}

/** One consumer group on one stream, as a scrape sees it. */
export interface GroupBacklog {
  stream: string;
  partition: string;
  group: string;
  /** Delivered to the group's consumers, not yet acknowledged. */
  pending: number;
  /** Not yet delivered; null when Redis cannot tell (entries deleted past the group's position). */
  unread: number | null;
  /** Age (s) of the oldest entry the group has not acknowledged; 0 when it is caught up. */
  lagSeconds: number;
}

/** `[name, value, …]` (RESP2, or RESP3 maps as ioredis flattens them) or an object, as a record. */
function pairs(reply: unknown): Record<string, unknown> {
  if (!Array.isArray(reply)) return reply && typeof reply === 'object' ? { ...reply } : {};
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = reply[i + 1];
  return out;
}

/** The time (ms) in a stream id `<ms>-<seq>`. */
function msOfId(id: unknown): number | null {
  const ms = typeof id === 'string' ? Number(id.split('-')[0]) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The oldest entry a group has not acknowledged: its first pending entry (XPENDING's summary),
 * else the first one after its last delivered id. Null when there is none.
 */
async function oldestUnacknowledged(
  redis: RedisClient,
  key: string,
  group: { name: string; pending: number; unread: number | null; lastDelivered: string },
): Promise<number | null> {
  if (group.pending > 0) {
    const summary = await redis.xpending(key, group.name);
    return msOfId(summary[1]);
  }
  if (group.unread === 0) return null;
  const next = await redis.xrange(key, `(${group.lastDelivered}`, '+', 'COUNT', 1);
  return msOfId(next[0]?.[0]);
}

/** Every consumer group of a stream (none when the stream does not exist yet). */
async function readStream(
  redis: RedisClient,
  s: WatchedStream,
  now: number,
): Promise<{ length: number; groups: GroupBacklog[] }> {
  const [groupsReply, length] = await Promise.all([
    // XINFO on a missing stream fails with a bare `ERR`: ask whether it exists instead.
    redis.exists(s.key).then((n) => (n === 0 ? [] : redis.call('XINFO', 'GROUPS', s.key))),
    redis.xlen(s.key),
  ]);
  const groups = await Promise.all(
    (Array.isArray(groupsReply) ? groupsReply : []).map(async (raw): Promise<GroupBacklog> => {
      const g = pairs(raw);
      const lag = g.lag;
      const group = {
        name: String(g.name),
        pending: Number(g.pending ?? 0),
        unread: lag === null || lag === undefined ? null : Number(lag),
        lastDelivered: typeof g['last-delivered-id'] === 'string' ? g['last-delivered-id'] : '0-0',
      };
      const oldest = await oldestUnacknowledged(redis, s.key, group);
      return {
        stream: s.stream,
        partition: s.partition,
        group: group.name,
        pending: group.pending,
        unread: group.unread,
        lagSeconds: oldest === null ? 0 : Math.max(0, (now - oldest) / 1000),
      };
    }),
  );
  return { length, groups };
}

/** The backlog of every consumer group on the watched streams (for the metrics and tests). */
export async function readStreamBacklogs(
  redis: RedisClient,
  streams: readonly WatchedStream[],
  now = Date.now(),
): Promise<{ stream: WatchedStream; length: number; groups: GroupBacklog[] }[]> {
  return Promise.all(
    streams.map(async (stream) => ({ stream, ...(await readStream(redis, stream, now)) })),
  );
}

/**
 * Stream backlogs and ingest lag, read when Prometheus scrapes: for each watched stream its
 * length, and for every consumer group on it (the coordinator's `ingest`, and any other reader
 * of the feed) the entries pending and unread, and how far behind it is in seconds. A few
 * commands a stream (XINFO GROUPS, XLEN, one XPENDING or XRANGE COUNT 1 a group behind).
 */
export function registerStreamMetrics(
  registry: Registry,
  redis: RedisClient,
  streams: readonly WatchedStream[],
  onError: (err: unknown) => void,
): void {
  const sample = sharedRead(() => readStreamBacklogs(redis, streams), onError);
  const registers = [registry];
  const groupLabels = ['stream', 'partition', 'group'] as const;
  const perGroup = (
    name: string,
    help: string,
    value: (g: GroupBacklog) => number | null,
  ): Gauge<(typeof groupLabels)[number]> =>
    new Gauge({
      name,
      help,
      labelNames: groupLabels,
      registers,
      async collect() {
        const all = await sample();
        this.reset();
        for (const g of (all ?? []).flatMap((s) => s.groups)) {
          const v = value(g);
          if (v !== null) this.set({ stream: g.stream, partition: g.partition, group: g.group }, v);
        }
      },
    });
  new Gauge({
    name: 'crawler_stream_entries',
    help: 'Entries a stream holds now (a feed partition: its retention, more while a consumer group has not read them; telemetry entries are deleted once ingested)',
    labelNames: ['stream', 'partition'],
    registers,
    async collect() {
      const all = await sample();
      this.reset();
      for (const s of all ?? [])
        this.set({ stream: s.stream.stream, partition: s.stream.partition }, s.length);
    },
  });
  perGroup(
    'crawler_stream_pending_entries',
    'Entries delivered to a consumer group and not yet acknowledged',
    (g) => g.pending,
  );
  perGroup(
    'crawler_stream_unread_entries',
    'Entries not yet delivered to a consumer group (no sample when Redis cannot tell)',
    (g) => g.unread,
  );
  perGroup(
    'crawler_stream_lag_seconds',
    'Ingest lag: age of the oldest entry a consumer group has not acknowledged (0 when caught up)',
    (g) => g.lagSeconds,
  );
}
