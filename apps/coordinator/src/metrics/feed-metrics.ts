import { Counter, Gauge, type Registry } from 'prom-client';
import type { FeedPressure } from '@crawler/adapters/feed';
import { sharedRead } from './shared-read';

/**
 * The `pages.parsed` feed's pressure, read when Prometheus scrapes (one trim-script read a
 * partition): unread bytes of the slowest groups against the level at which agents stop taking
 * leases, whether they do, each group's unread pages, and the pages each group lost.
 */
export function registerFeedMetrics(
  registry: Registry,
  read: () => Promise<FeedPressure>,
  onError: (err: unknown) => void,
): void {
  const sample = sharedRead(read, onError);
  const registers = [registry];
  const gauge = (name: string, help: string, value: (p: FeedPressure) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const p = await sample();
        if (p) this.set(value(p));
      },
    });
  gauge(
    'crawler_feed_unread_bytes',
    'Bytes of feed pages the slowest registered consumer group of each partition has not acknowledged',
    (p) => p.unreadBytes,
  );
  gauge(
    'crawler_feed_hold_at_bytes',
    'Unread feed bytes at which agents take no new lease (90% of FEED_MAX_BYTES)',
    (p) => p.holdAtBytes,
  );
  gauge(
    'crawler_feed_leasing_held',
    '1 while agents take no new lease because unread feed pages reached the hold level (FEED_OVERFLOW=hold)',
    (p) => (p.hold ? 1 : 0),
  );
  new Gauge({
    name: 'crawler_feed_group_unread_pages',
    help: 'Feed pages a registered consumer group has not acknowledged, all partitions',
    labelNames: ['group'],
    registers,
    async collect() {
      const p = await sample();
      this.reset();
      for (const g of p?.groups ?? [])
        if (g.registered) this.set({ group: g.group }, g.unreadPages);
    },
  });
  const seen = new Map<string, number>();
  new Counter({
    name: 'crawler_feed_dropped_pages_total',
    help: 'Feed pages a consumer group lost: trimmed before it acknowledged them (FEED_OVERFLOW=drop), or unread when it was unregistered',
    labelNames: ['group'],
    registers,
    async collect() {
      const p = await sample();
      for (const g of p?.groups ?? []) {
        this.inc({ group: g.group }, Math.max(0, g.droppedPages - (seen.get(g.group) ?? 0)));
        seen.set(g.group, g.droppedPages);
      }
    },
  });
}
