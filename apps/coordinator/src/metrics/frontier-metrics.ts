import { Counter, Gauge, type Registry } from 'prom-client';
import type { Frontier, FrontierStats } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { sharedRead } from './shared-read';

/** What a scrape reads of the frontier: its stats, and counters its scripts keep per shard. */
interface FrontierSample {
  stats: FrontierStats;
  /** Leases ended at a failed URL: each one backed its host off (failLease). */
  backoffs: number;
  /** Leases that expired and were taken back (their agent died or stalled). */
  expired: number;
  /** Dead letters parked, by reason (letters parked before these counts existed are not in). */
  deadByReason: Record<string, number>;
  /** Dead letters dropped because their shard held its byte cap, by reason. */
  droppedByReason: Record<string, number>;
  /** Bytes of dead letters held (all shards). */
  deadBytes: number;
}

async function readFrontier(frontier: Frontier, redis: RedisClient): Promise<FrontierSample> {
  const [stats, hashes] = await Promise.all([
    frontier.stats(),
    // One HGETALL per shard (each its own cluster slot), sent together.
    Promise.all(
      Array.from({ length: frontier.shards }, (_, s) => redis.hgetall(frontier.keys.stats(s))),
    ),
  ]);
  const sample: FrontierSample = {
    stats,
    backoffs: 0,
    expired: 0,
    deadByReason: {},
    droppedByReason: {},
    deadBytes: 0,
  };
  for (const fields of hashes)
    for (const [field, value] of Object.entries(fields)) {
      const n = Number(value) || 0;
      if (field === 'failed') sample.backoffs += n;
      else if (field === 'reclaimed') sample.expired += n;
      else if (field === 'dead_bytes') sample.deadBytes += n;
      else if (field.startsWith('dead:') && n > 0) {
        const reason = field.slice('dead:'.length);
        sample.deadByReason[reason] = (sample.deadByReason[reason] ?? 0) + n;
      } else if (field.startsWith('dead_dropped:') && n > 0) {
        const reason = field.slice('dead_dropped:'.length);
        sample.droppedByReason[reason] = (sample.droppedByReason[reason] ?? 0) + n;
      }
    }
  return sample;
}

/**
 * The frontier's sizes and counters, read from Redis when Prometheus scrapes (one stats script
 * and one HGETALL per shard, shared by every metric of the scrape). Every coordinator of an
 * installation reports the same frontier: aggregate with max(), not sum().
 */
export function registerFrontierMetrics(
  registry: Registry,
  frontier: Frontier,
  redis: RedisClient,
  onError: (err: unknown) => void,
): void {
  const sample = sharedRead(() => readFrontier(frontier, redis), onError);
  const registers = [registry];
  const gauge = (name: string, help: string, value: (s: FrontierSample) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const s = await sample();
        if (s) this.set(value(s));
        else this.reset();
      },
    });
  // Counters kept in Redis, mirrored as they are (they survive a coordinator restart).
  const counter = (name: string, help: string, value: (s: FrontierSample) => number) =>
    new Counter({
      name,
      help,
      registers,
      async collect() {
        const s = await sample();
        this.reset();
        if (s) this.inc(Math.max(0, value(s)));
      },
    });

  gauge('crawler_frontier_queued_urls', 'URLs queued in the frontier', (s) => s.stats.queuedUrls);
  new Gauge({
    name: 'crawler_frontier_hosts',
    help: 'Hosts with URLs queued, by state: ready (may be leased now) or waiting (their politeness gap, backoff or daily budget has not passed)',
    labelNames: ['state'],
    registers,
    async collect() {
      const s = await sample();
      this.reset();
      if (!s) return;
      this.set({ state: 'ready' }, s.stats.readyHosts);
      this.set({ state: 'waiting' }, s.stats.scheduledHosts - s.stats.readyHosts);
    },
  });
  gauge('crawler_frontier_known_hosts', 'Hosts the frontier knows', (s) => s.stats.hosts);
  gauge(
    'crawler_frontier_open_leases',
    'Host leases open (held by an agent, not yet completed or expired)',
    (s) => s.stats.openLeases,
  );
  gauge('crawler_frontier_seen_urls', 'URLs in the seen set', (s) => s.stats.seenUrls);
  gauge(
    'crawler_frontier_seen_false_positive_rate',
    'Share of new URLs the Bloom filters would skip as seen at their current fill (0 in exact mode)',
    (s) => s.stats.seenFalsePositiveRate,
  );
  gauge('crawler_frontier_dead_letters', 'Dead letters held', (s) => s.stats.deadLetters);
  new Gauge({
    name: 'crawler_frontier_dead_letters_by_reason',
    help: 'Dead letters held, by the reason they were parked (robots_unavailable, http_503, …)',
    labelNames: ['reason'],
    registers,
    async collect() {
      const s = await sample();
      this.reset();
      for (const [reason, n] of Object.entries(s?.deadByReason ?? {})) this.set({ reason }, n);
    },
  });
  gauge(
    'crawler_frontier_dead_letter_bytes',
    'Bytes of dead letters held in Redis (bounded by FRONTIER_DEAD_LETTER_MAX_BYTES)',
    (s) => s.deadBytes,
  );
  new Counter({
    name: 'crawler_frontier_dead_letters_dropped_total',
    help: 'Dead letters not kept because their shard held its share of FRONTIER_DEAD_LETTER_MAX_BYTES, by reason',
    labelNames: ['reason'],
    registers,
    async collect() {
      const s = await sample();
      this.reset();
      for (const [reason, n] of Object.entries(s?.droppedByReason ?? {})) this.inc({ reason }, n);
    },
  });
  counter(
    'crawler_frontier_processed_urls_total',
    'URLs the agents completed (fetched, or given up on) since the frontier began',
    (s) => s.stats.processedUrls,
  );
  counter(
    'crawler_frontier_host_backoffs_total',
    'Politeness backoffs: leases ended at a failed URL (timeout, 429, 5xx…), each pushing its host back by base × 2^(errors−1), or Retry-After',
    (s) => s.backoffs,
  );
  counter(
    'crawler_frontier_expired_leases_total',
    'Leases that expired and were taken back (their agent died or stalled)',
    (s) => s.expired,
  );
}
